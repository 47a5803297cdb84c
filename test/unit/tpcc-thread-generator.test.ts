import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { LoadContext, TableRows } from '../../src/workloads/workload.js';
import { workload, type TpccRecord } from '../../src/workloads/tpcc/workload.js';

const CTX: LoadContext<TpccRecord> = {
  seed: 11,
  loadTime: '2026-01-01 00:00:00.000',
  record: { warehouses: 2, loadConstants: { cLast: 100, cId: 200, olIId: 300 } },
  copyFormat: 'binary',
};

/** Each table's bytes (a digest of them, which compares fast), in the order the task gives them. */
function bytesOf(parts: Iterable<TableRows>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of parts) {
    if (!('chunks' in part)) throw new Error(`${part.table}: rows, not COPY chunks`);
    const hash = createHash('sha256');
    for (const chunk of part.chunks) hash.update(chunk);
    out[part.table] = hash.digest('hex');
  }
  return out;
}

describe("TPC-C's loader worker generator", () => {
  it('writes the bytes `generate` writes, task after task, with the pools it built once for the thread', () => {
    const generate = workload.loader.threadGenerator!(CTX);
    for (const task of [
      { kind: 'warehouse', w: 2, unit: 2 },
      { kind: 'warehouse', w: 1, unit: 1 },
      { kind: 'customer', w: 1, unit: 1 },
    ] as const) {
      const once = bytesOf(generate(task, () => undefined));
      expect(Object.keys(once).length).toBeGreaterThan(0);
      expect(once).toEqual(bytesOf(workload.loader.generate(task, CTX, () => undefined)));
    }
  });
});
