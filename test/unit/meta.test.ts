import { describe, expect, it } from 'vitest';
import { corruptMetaMessage, parseMeta } from '../../src/workloads/tpcc/meta.js';

const GOOD = {
  status: 'complete',
  warehouses: 4,
  seed: 7,
  loadConstants: { cLast: 100, cId: 200, olIId: 300 },
  startedAt: '2024-05-01T12:00:00.000Z',
  completedAt: '2024-05-01T12:01:00.000Z',
  loadSeconds: 60.5,
};

describe('parseMeta: the load record is validated, never trusted', () => {
  it('reads what txbench writes', () => {
    expect(parseMeta(JSON.stringify(GOOD))).toEqual({ kind: 'valid', meta: GOOD });
    const loading = { ...GOOD, status: 'loading', completedAt: undefined, loadSeconds: undefined };
    expect(parseMeta(JSON.stringify(loading))).toMatchObject({ kind: 'valid', meta: { status: 'loading' } });
  });

  it.each([
    ['not JSON', '{"status":"complete",', /not valid JSON/],
    ['truncated to an empty string', '', /not valid JSON/],
    ['a JSON string', '"complete"', /is not a load record/],
    ['warehouses as text', JSON.stringify({ ...GOOD, warehouses: 'four' }), /bad warehouses/],
    ['zero warehouses', JSON.stringify({ ...GOOD, warehouses: 0 }), /bad warehouses/],
    ['an unknown status', JSON.stringify({ ...GOOD, status: 'done' }), /bad status/],
    ['no load constants', JSON.stringify({ ...GOOD, loadConstants: undefined }), /bad loadConstants/],
    [
      'C_LAST out of range',
      JSON.stringify({ ...GOOD, loadConstants: { cLast: 300, cId: 1, olIId: 1 } }),
      /bad loadConstants\.cLast/,
    ],
    ['no seed', JSON.stringify({ ...GOOD, seed: undefined }), /bad seed/],
  ])('%s is invalid, with the field named', (_, text, problem) => {
    const record = parseMeta(text);
    expect(record.kind).toBe('invalid');
    if (record.kind === 'invalid') expect(record.problem).toMatch(problem);
  });

  it('a NULL value is invalid', () => {
    expect(parseMeta(null)).toEqual({ kind: 'invalid', problem: 'has an empty value' });
  });

  it('the message is one line that says to load again with --replace', () => {
    const message = corruptMetaMessage('is not valid JSON');
    expect(message).toContain('txbench_meta');
    expect(message).toContain('is not valid JSON');
    expect(message).toContain('txbench load --replace');
    expect(message).not.toContain('\n');
  });
});
