/**
 * One section of the bench: runs it unless it was not selected or the bench was interrupted,
 * records its data, its table and its targets, and turns any failure into a one-line reason so
 * that the other sections' figures are kept.
 */
import type { Cleanup } from './cleanup.js';
import { evaluate, type SummaryRow, type TargetDef } from './figures.js';

export interface SectionRecord {
  id: number;
  key: string;
  title: string;
  status: 'ok' | 'failed' | 'skipped';
  error?: string;
  seconds: number;
  data?: unknown;
  table?: string;
  targets: SummaryRow[];
}

const started = performance.now();
const elapsed = (): string => `${((performance.now() - started) / 1000).toFixed(0)} s`;

/** Progress on stderr, with the time since the bench started. */
export const log = (line: string): void => console.error(`bench [${elapsed()}] ${line}`);

export async function section<T>(
  cleanup: Cleanup,
  records: SectionRecord[],
  spec: { id: number; key: string; title: string; targets: readonly TargetDef<T>[] },
  selected: boolean,
  run: () => Promise<T>,
  table: (data: T) => string,
): Promise<T | undefined> {
  const record: SectionRecord = { ...spec, status: 'skipped', seconds: 0, targets: [] };
  records.push(record);
  if (!selected) return undefined;
  if (cleanup.wasInterrupted()) {
    record.status = 'failed';
    record.error = 'interrupted before it started';
    record.targets = evaluate(`${spec.id}`, spec.targets, undefined, record.error);
    return undefined;
  }
  log(`${spec.id}. ${spec.title}`);
  const t0 = performance.now();
  let data: T | undefined;
  try {
    data = await run();
    record.status = 'ok';
    record.data = data;
    record.table = table(data);
  } catch (err) {
    record.status = 'failed';
    record.error = oneLine(err);
    log(`${spec.id}. ${spec.title} failed: ${record.error}`);
  }
  record.seconds = Math.round((performance.now() - t0) / 100) / 10;
  record.targets = evaluate(`${spec.id}`, spec.targets, data, record.error);
  return data;
}

export function oneLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 300);
}
