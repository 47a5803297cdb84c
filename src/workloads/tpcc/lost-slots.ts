import { RetriesExhaustedError, type ErrorClass } from '../../engine/types.js';

/**
 * Slots whose connection died: nothing is sent on them again (a dead connection gives only more
 * errors, and postgres.js 3.4.9 crashes on writes to a dead reserved one, porsager/postgres#1208);
 * each later call fails at once with the driver's own connection-lost code.
 */
export class LostSlots {
  private readonly lost: boolean[];

  constructor(
    slots: number,
    private readonly classify: (err: unknown) => ErrorClass,
    private readonly lostCode: string,
  ) {
    this.lost = new Array<boolean>(slots).fill(false);
  }

  async run<T>(slot: number, body: () => Promise<T>): Promise<T> {
    if (this.lost[slot])
      throw Object.assign(new Error('connection was lost earlier'), { code: this.lostCode });
    try {
      return await body();
    } catch (err) {
      const last = err instanceof RetriesExhaustedError ? err.lastError : err;
      if (this.classify(last) === 'connection') this.lost[slot] = true;
      throw err;
    }
  }
}
