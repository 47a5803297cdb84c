/**
 * A replay's ref in the workload registry (Workload.ref): `replay:SPEED:FILE`, the speed it is
 * replayed at and the capture file's absolute path. A worker thread makes the same replay workload
 * again from it, and drives its share of the captured sessions.
 */
import path from 'node:path';
import { UsageError } from '../errors.js';

export interface ReplayRef {
  file: string;
  /** Offsets divided by this; Infinity for `--speed max`. */
  speed: number;
}

export function replayRef(file: string, speed: number): string {
  return `replay:${speed === Infinity ? 'max' : speed}:${path.resolve(file)}`;
}

export function parseReplayRef(ref: string): ReplayRef {
  const m = /^replay:([^:]+):(.+)$/s.exec(ref);
  const speed = m?.[1] === 'max' ? Infinity : Number(m?.[1]);
  if (m === null || !(speed > 0)) {
    throw new UsageError(`${ref} is not a replay of a workload file; replay one with txbench replay FILE`);
  }
  return { file: m[2]!, speed };
}
