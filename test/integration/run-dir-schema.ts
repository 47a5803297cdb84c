/**
 * Checks a run directory the real CLI wrote: its run.json against schema/run.schema.json (ajv), and
 * read back by the results store as the kind it says it is.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'vitest';
import { readRun } from '../../dist/results/store.js';
import { runSchemaCheck } from '../../dist/results/run-schema.js';

const runCheck = runSchemaCheck();
const schemaErrors = (value: unknown): string[] => runCheck.errors(value);

/** The run directory a command printed (`run directory: DIR`). */
export function runDirOf(stdout: string): string {
  const match = /^run directory: (.+)$/m.exec(stdout);
  expect(match, stdout.slice(-2000)).not.toBeNull();
  return match![1]!;
}

export async function expectValidRunDir(
  dir: string,
  kind: 'run' | 'targets' | 'steps' | 'sweep',
): Promise<void> {
  const file = path.join(dir, 'run.json');
  const json = JSON.parse(await readFile(file, 'utf8')) as { kind?: unknown };
  expect(schemaErrors(json), file).toEqual([]);
  expect(json.kind).toBe(kind);
  expect((await readRun(file)).kind).toBe(kind);
}
