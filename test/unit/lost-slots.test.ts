import { describe, expect, it } from 'vitest';
import { RetriesExhaustedError } from '../../src/engine/types.js';
import { LostSlots } from '../../src/workloads/tpcc/lost-slots.js';

const classify = (err: unknown): 'connection' | 'other' =>
  (err as { code?: string }).code === 'GONE' ? 'connection' : 'other';

describe('LostSlots', () => {
  it('after a connection error on a slot, later calls on it fail at once without running', async () => {
    const slots = new LostSlots(2, classify, 'LOST');
    let ran = 0;
    await expect(
      slots.run(0, async () => Promise.reject(Object.assign(new Error('x'), { code: 'GONE' }))),
    ).rejects.toThrow('x');
    await expect(slots.run(0, async () => ++ran)).rejects.toMatchObject({ code: 'LOST' });
    expect(ran).toBe(0);
    expect(await slots.run(1, async () => ++ran)).toBe(1);
  });

  it('other errors, and connection errors inside exhausted retries, are told apart', async () => {
    const slots = new LostSlots(2, classify, 'LOST');
    await expect(slots.run(0, async () => Promise.reject(new Error('deadlock')))).rejects.toThrow('deadlock');
    expect(await slots.run(0, async () => 'fine')).toBe('fine');
    const gone = new RetriesExhaustedError(2, Object.assign(new Error('y'), { code: 'GONE' }), 'connection');
    await expect(slots.run(1, async () => Promise.reject(gone))).rejects.toBe(gone);
    await expect(slots.run(1, async () => 'never')).rejects.toMatchObject({ code: 'LOST' });
  });
});
