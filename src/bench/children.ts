/** Child processes the bench starts: killed by pid if the bench is interrupted or gives up on them. */
import { fork, spawn, type ChildProcess, type ForkOptions, type SpawnOptions } from 'node:child_process';
import { forkOnClientCpus } from './placement.js';
import type { Cleanup } from './cleanup.js';

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Wraps a started child: collects its output, kills it after `timeoutMs` or on clean-up. */
function track(cleanup: Cleanup, child: ChildProcess, name: string, timeoutMs: number): Promise<Finished> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString();
    if (stderr.length > 100_000) stderr = stderr.slice(-50_000);
  });
  let exited = false;
  const done = new Promise<Finished>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      exited = true;
      resolve({ code, signal, stdout, stderr });
    });
  });
  const untrack = cleanup.onCleanup(name, async () => {
    if (!exited) {
      child.kill('SIGKILL');
      await done.catch(() => undefined);
    }
  });
  const timer = setTimeout(() => {
    if (!exited) child.kill('SIGKILL');
  }, timeoutMs);
  return done.finally(() => {
    clearTimeout(timer);
    void untrack();
  });
}

export function startNode(
  cleanup: Cleanup,
  script: URL,
  args: string[],
  timeoutMs: number,
  options: ForkOptions = {},
): { child: ChildProcess; finished: Promise<Finished> } {
  const child = fork(script, args, { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], ...options });
  return { child, finished: track(cleanup, child, `node ${script.pathname}`, timeoutMs) };
}

export function startProgram(
  cleanup: Cleanup,
  cmd: string,
  args: string[],
  timeoutMs: number,
  options: SpawnOptions = {},
): { child: ChildProcess; finished: Promise<Finished> } {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  return { child, finished: track(cleanup, child, cmd, timeoutMs) };
}

/** The last non-empty line of a child's error output, for a one-line failure reason. */
export function lastLine(text: string): string {
  return (
    text
      .trim()
      .split('\n')
      .filter((l) => l.trim() !== '')
      .at(-1) ?? ''
  );
}

/**
 * Runs a measuring child (a node script given `request` as JSON, printing its result as JSON on
 * its last line of output) to its end, and reads that result; `what` names it in a failure.
 */
export async function runJsonChild<T>(
  cleanup: Cleanup,
  script: URL,
  request: { warmupMs: number; durationMs: number },
  what: string,
  clientCpus?: string,
): Promise<T> {
  const { finished } = startNode(
    cleanup,
    script,
    [JSON.stringify(request)],
    request.warmupMs + request.durationMs + 120_000,
    forkOnClientCpus(clientCpus, []),
  );
  const result = await finished;
  const line = result.stdout.trim().split('\n').at(-1);
  if (result.code !== 0 || line === undefined || line === '')
    throw new Error(`the ${what} failed (exit ${result.code ?? result.signal}): ${lastLine(result.stderr)}`);
  return JSON.parse(line) as T;
}
