/**
 * A run killed outright (SIGKILL) mid-window: its run directory keeps every interval flushed so far,
 * and `txbench results` lists it as crashed. The server belongs to the test, so killing txbench
 * leaves nothing behind. Drives the compiled CLI (run `npm run build` first).
 */
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BIN,
  cleanEnv,
  makeTempDir,
  removeDir,
  runCli,
  startTempServer,
  type TempServer,
} from './helpers.js';

let pg: TempServer;
let dir: string;

beforeAll(async () => {
  pg = await startTempServer();
  dir = await makeTempDir();
  const load = await runCli(dir, ['load', '--db', pg.url, '--warehouses', '1'], 180_000);
  expect(load.code, load.stderr).toBe(0);
}, 300_000);

afterAll(async () => {
  await pg?.stop();
  await removeDir(dir);
});

describe('txbench killed with SIGKILL mid-run', () => {
  it('leaves a readable run directory that results lists as crashed', async () => {
    const child = spawn(
      process.execPath,
      [
        BIN,
        'run',
        '--db',
        pg.url,
        '--warmup',
        '1s',
        '--duration',
        '60s',
        '--interval',
        '1s',
        '--out',
        'results',
      ],
      { cwd: dir, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    const measuring = new Promise<void>((resolve, reject) => {
      child.stderr.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
        // Three measured intervals printed, a second apart: the first two are on the disk by now
        // (each is printed as its write begins, which takes milliseconds).
        if ((stderr.match(/ measure\]/g) ?? []).length >= 3) resolve();
      });
      child.on('exit', () => reject(new Error(`txbench ended before it was killed: ${stderr}`)));
    });
    await measuring;
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGKILL');
    await exited;

    const [runDir] = await readdir(path.join(dir, 'results'));
    const base = path.join(dir, 'results', runDir!);
    const run = JSON.parse(await readFile(path.join(base, 'run.json'), 'utf8')) as { status: string };
    expect(run.status).toBe('running');
    const intervals = (await readFile(path.join(base, 'intervals.ndjson'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { phase: string });
    expect(intervals.filter((i) => i.phase === 'measure').length).toBeGreaterThanOrEqual(2);

    const listed = await runCli(dir, ['results', 'results', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const runs = JSON.parse(listed.stdout) as { id: string; status: string }[];
    expect(runs.map((r) => [r.id, r.status])).toEqual([[runDir, 'crashed']]);
    expect(listed.stdout).not.toContain(new URL(pg.url).password);
  });
});
