/**
 * Finds a workload by name (`tpcc`, the default; `tpcb`; `sysbench`) or by the path of a user's
 * workload file (`./bench/kv.ts`, `.js`, `.mjs`), which is loaded at run time: `.ts` through jiti
 * (a maintained TypeScript loader), JavaScript with Node's own import. A workload made at run time
 * from a file of its own (a replayed capture) has a ref of its kind, `replay:…` (Workload.ref), by
 * which a worker thread makes it again. Everything outside workloads/ reaches workloads only
 * through here. Each workload module is imported on first use, so a TPC-B run never loads TPC-C's
 * code; Node's module cache makes a second import of it cheap.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { UsageError } from '../errors.js';
import type { Workload } from './workload.js';

export const DEFAULT_WORKLOAD = 'tpcc';

/** The built-in workloads by name, each a module whose `workload` export is the workload. */
const BUILT_IN: Readonly<Record<string, () => Promise<Workload>>> = {
  tpcc: async () => (await import('./tpcc/workload.js')).workload as unknown as Workload,
  tpcb: async () => (await import('./tpcb/workload.js')).workload as unknown as Workload,
  sysbench: async () => (await import('./sysbench/workload.js')).workload as unknown as Workload,
};

export const BUILT_IN_WORKLOADS: readonly string[] = Object.keys(BUILT_IN);

/** Workloads made at run time from a ref of their kind (`KIND:…`), by kind: each reads the rest. */
const MADE: Readonly<Record<string, (ref: string) => Promise<Workload>>> = {
  replay: async (ref) => (await import('../replay/replay-workload.js')).replayWorkload(ref),
};

const USER_FILE = /\.(ts|mts|js|mjs)$/;

/** The kind of a made workload's ref (`replay` of `replay:…`), or undefined. */
function madeKind(ref: string): string | undefined {
  const kind = /^([a-z]+):/.exec(ref)?.[1];
  return kind !== undefined && Object.hasOwn(MADE, kind) ? kind : undefined;
}

/** Whether `--workload` names a file rather than a built-in workload. */
export function isWorkloadPath(ref: string): boolean {
  if (madeKind(ref) !== undefined) return false;
  return USER_FILE.test(ref) || ref.includes('/') || ref.includes(path.sep);
}

/**
 * The workload `ref` names: a built-in name, a file path (relative to the current directory), or
 * a made workload's ref. Bad references are one-line usage errors (exit 2): an unknown name (with
 * the list), a missing file, a file that does not compile, a file that exports no workload.
 */
export function findWorkload(ref: string = DEFAULT_WORKLOAD): Promise<Workload> {
  const kind = madeKind(ref);
  if (kind !== undefined) return MADE[kind]!(ref);
  return isWorkloadPath(ref) ? loadFile(ref, path.resolve(ref)) : builtIn(ref);
}

/** What a worker thread passes to find the same workload: the name, the absolute path, or the ref. */
export function workloadRef(ref: string): string {
  return isWorkloadPath(ref) ? path.resolve(ref) : ref;
}

async function builtIn(name: string): Promise<Workload> {
  const load = BUILT_IN[name];
  if (load === undefined) {
    throw new UsageError(
      `unknown workload "${name}"; use one of ${BUILT_IN_WORKLOADS.join(', ')}, or the path of a workload file (.ts, .js, .mjs)`,
    );
  }
  return load();
}

async function loadFile(ref: string, file: string): Promise<Workload> {
  if (!USER_FILE.test(file)) {
    throw new UsageError(`workload file ${ref} must end in .ts, .mts, .js or .mjs`);
  }
  if (!existsSync(file)) throw new UsageError(`workload file ${ref} does not exist; check the path`);
  let module: Record<string, unknown>;
  try {
    module = /\.m?ts$/.test(file)
      ? await importTypeScript(file)
      : ((await import(pathToFileURL(file).href)) as Record<string, unknown>);
  } catch (err) {
    throw new UsageError(`workload file ${ref} could not be loaded: ${firstLine(err)}`);
  }
  const candidate = module.default ?? module.workload;
  const problem = notAWorkload(candidate);
  if (problem !== undefined) {
    throw new UsageError(
      `workload file ${ref} ${problem}; export one with \`export default defineWorkload({...})\` (see docs/workloads.md)`,
    );
  }
  return candidate as Workload;
}

async function importTypeScript(file: string): Promise<Record<string, unknown>> {
  const { createJiti } = await import('jiti');
  const jiti = createJiti(import.meta.url, { moduleCache: false, fsCache: false, interopDefault: false });
  return jiti.import<Record<string, unknown>>(file);
}

/** Why a module's export is not a workload, in a few words; undefined when it is one. */
export function notAWorkload(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null)
    return 'exports no workload (no default or `workload` export)';
  const w = value as Partial<Record<keyof Workload, unknown>>;
  const missing = (
    [
      ['name', 'string'],
      ['options', 'object'],
      ['profiles', 'object'],
      ['dialects', 'object'],
      ['tables', 'function'],
      ['parseRecord', 'function'],
      ['detect', 'function'],
      ['loader', 'object'],
      ['prepareRun', 'function'],
    ] as const
  ).filter(([k, type]) => typeof w[k] !== type || w[k] === null);
  if (missing.length > 0)
    return `exports an object that is not a workload (no ${missing.map(([k]) => k).join(', ')})`;
  if (!Array.isArray(w.profiles) || w.profiles.length === 0) return 'declares no transaction profiles';
  return undefined;
}

function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return (
    text
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? 'unknown error'
  );
}
