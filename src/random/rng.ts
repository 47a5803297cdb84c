/**
 * A small, fast, seedable random generator and seed derivation, shared by the engine (decks,
 * pacing, per-terminal streams) and every workload. It knows nothing of any benchmark's rules.
 */

const TWO_POW_32 = 4294967296;

/** sfc32: a 128-bit-state generator that passes PractRand and costs a few integer ops per draw. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    this.a = 0x9e3779b9;
    this.b = 0x243f6a88;
    this.c = 0xb7e15162;
    this.d = seed >>> 0;
    for (let i = 0; i < 15; i++) this.next32();
  }

  /** A uniformly distributed unsigned 32-bit integer. */
  next32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform on [0, 1). */
  float(): number {
    return this.next32() / TWO_POW_32;
  }

  /** Writes the generator's state (four 32-bit words) at `offset`, to replay its draws later. */
  saveState(into: Int32Array, offset = 0): void {
    into[offset] = this.a;
    into[offset + 1] = this.b;
    into[offset + 2] = this.c;
    into[offset + 3] = this.d;
  }

  /** Returns to a state `saveState` wrote: the draws that followed it come again. */
  restoreState(from: Int32Array, offset = 0): void {
    this.a = from[offset]!;
    this.b = from[offset + 1]!;
    this.c = from[offset + 2]!;
    this.d = from[offset + 3]!;
  }

  /** Uniform integer in [lo, hi], both ends included. */
  int(lo: number, hi: number): number {
    return lo + Math.floor((this.next32() / TWO_POW_32) * (hi - lo + 1));
  }
}

/**
 * Derives independent seeds for workers, warehouses or terminals from one run seed. The running
 * hash is mixed before each part joins it, so no two (seed, part) pairs collide by a simple
 * relation such as seed ^ part (seed 2's round 0 must not be seed 3's round 1).
 */
export function deriveSeed(seed: number, ...parts: number[]): number {
  let h = seed >>> 0;
  for (const p of parts) h = mix32(mix32(h) ^ (p >>> 0));
  return h;
}

/** murmur3's finaliser: a bijection on 32-bit integers that spreads every input bit. */
function mix32(x: number): number {
  let h = Math.imul(x ^ (x >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}
