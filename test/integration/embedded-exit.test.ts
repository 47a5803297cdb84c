/**
 * The embedded server's last resort: a server still up when its process exits is told to shut
 * down. The server installs that exit handler itself and removes it when it is stopped, so no
 * module keeps a process-wide list of servers.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedded } from '../../dist/targets/embedded.js';
import { makeTempDir, removeDir, REPO_ROOT } from './helpers.js';

const EMBEDDED = pathToFileURL(path.join(REPO_ROOT, 'dist/targets/embedded.js')).href;

/** Starts the server on the data directory given and exits without stopping it. */
const START_AND_EXIT = `
import { startEmbedded } from ${JSON.stringify(EMBEDDED)};
await startEmbedded(process.argv[1], { create: false });
console.log('started');
process.exit(0);
`;

describe('embedded PostgreSQL at process exit', () => {
  let dir: string;
  let dataDir: string;

  beforeAll(async () => {
    dir = await makeTempDir();
    dataDir = path.join(dir, 'pg');
  });

  afterAll(async () => {
    await removeDir(dir);
  });

  it('a server holds an exit handler while it runs and removes it when stopped', async () => {
    const before = process.listenerCount('exit');
    const server = await startEmbedded(dataDir, { create: true });
    try {
      expect(process.listenerCount('exit')).toBe(before + 1);
    } finally {
      await server.stop();
    }
    expect(process.listenerCount('exit')).toBe(before);
  }, 120_000);

  it('a server left running when its process exits shuts down', async () => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', START_AND_EXIT, dataDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout.trim()).toBe('started');
    // The handler sends a fast shutdown; the server removes postmaster.pid once it has finished.
    const pidFile = path.join(dataDir, 'postmaster.pid');
    const deadline = Date.now() + 60_000;
    while (existsSync(pidFile) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(pidFile)).toBe(false);
  }, 120_000);
});
