/**
 * sysbench's random numbers (src/sb_rand.c of sysbench 1.0.20, zipfian from 1.1): the `--rand-type`
 * distributions `sysbench.rand.default` draws from, with sysbench's default parameters
 * (`--rand-spec-iter=12`, `--rand-spec-pct=1`, `--rand-spec-res=75`, `--rand-pareto-h=0.2`,
 * `--rand-zipfian-exp=0.8`), and `sysbench.rand.string`. They take txbench's generator in place of
 * sysbench's xoroshiro128+: the same formulas on a uniform double in [0, 1).
 */
import type { Rng } from '../../random/rng.js';

export const RAND_TYPES = ['uniform', 'gaussian', 'special', 'pareto', 'zipfian'] as const;
export type RandType = (typeof RAND_TYPES)[number];

/** An integer in [a, b] from `rng`. */
export type RandFn = (rng: Rng, a: number, b: number) => number;

const SPEC_ITER = 12;
const SPEC_PCT = 1;
const SPEC_RES = 75;
const PARETO_H = 0.2;
const ZIPF_EXP = 0.8;

const ITER_MULT = 1 / SPEC_ITER;
const PCT_MULT = SPEC_PCT / 100;
const PCT_2_MULT = SPEC_PCT / 200;
const RES_MULT = 100 / (100 - SPEC_RES);
const PARETO_POWER = Math.log(PARETO_H) / Math.log(1 - PARETO_H);

/** C's conversion of a non-negative double to uint32_t: truncation. */
const u32 = (x: number): number => Math.trunc(x) >>> 0;

export const uniform: RandFn = (rng, a, b) => u32(a + rng.float() * (b - a + 1));

/** The mean of 12 uniform draws over the range: a bell around its middle. */
export const gaussian: RandFn = (rng, a, b) => {
  const t = b - a + 1;
  let sum = 0;
  for (let i = 0; i < SPEC_ITER; i++) sum += rng.float() * t;
  return a + u32(sum * ITER_MULT);
};

/**
 * sysbench's 'special': 75% of the values uniformly in the middle 1% of the range, the other 25%
 * gaussian over all of it.
 */
export const special: RandFn = (rng, a, b) => {
  const t = b - a;
  const rnd = rng.float();
  if (rnd * t * RES_MULT < t) {
    let sum = 0;
    for (let i = 0; i < SPEC_ITER; i++) sum += rng.float();
    return u32(a + sum * t * ITER_MULT);
  }
  const d = t * PCT_MULT;
  const res = rnd * (d + 1) + t / 2 - t * PCT_2_MULT;
  return a + u32(res);
};

export const pareto: RandFn = (rng, a, b) => a + u32((b - a + 1) * Math.pow(rng.float(), PARETO_POWER));

// Zipfian by rejection-inversion (Hörmann and Derflinger, after Apache Commons RNG), as sb_rand.c.

/** log(1 + x) / x, by its Taylor series near 0. */
function helper1(x: number): number {
  return Math.abs(x) > 1e-8 ? Math.log1p(x) / x : 1 - x * (0.5 - x * (1 / 3 - 0.25 * x));
}

/** (exp(x) - 1) / x, by its Taylor series near 0. */
function helper2(x: number): number {
  return Math.abs(x) > 1e-8 ? Math.expm1(x) / x : 1 + x * 0.5 * (1 + x * (1 / 3) * (1 + 0.25 * x));
}

function hIntegral(x: number, e: number): number {
  const logX = Math.log(x);
  return helper2((1 - e) * logX) * logX;
}

function h(x: number, e: number): number {
  return Math.exp(-e * Math.log(x));
}

function hIntegralInverse(x: number, e: number): number {
  let t = x * (1 - e);
  if (t < -1) t = -1;
  return Math.exp(helper1(t) * x);
}

const ZIPF_S = 2 - hIntegralInverse(hIntegral(2.5, ZIPF_EXP) - h(2, ZIPF_EXP), ZIPF_EXP);
const ZIPF_H_INTEGRAL_X1 = hIntegral(1.5, ZIPF_EXP) - 1;

/** A value in [1, n], P(k) proportional to 1 / k^0.8. */
function zipfianInt(rng: Rng, n: number): number {
  const hn = hIntegral(n + 0.5, ZIPF_EXP);
  for (;;) {
    const u = hn + rng.float() * (ZIPF_H_INTEGRAL_X1 - hn);
    const x = hIntegralInverse(u, ZIPF_EXP);
    let k = u32(x + 0.5);
    if (k < 1) k = 1;
    else if (k > n) k = n;
    if (k - x <= ZIPF_S || u >= hIntegral(k + 0.5, ZIPF_EXP) - h(k, ZIPF_EXP)) return k;
  }
}

export const zipfian: RandFn = (rng, a, b) => a + zipfianInt(rng, b - a + 1) - 1;

const BY_TYPE: Readonly<Record<RandType, RandFn>> = { uniform, gaussian, special, pareto, zipfian };

export function randFunction(type: RandType): RandFn {
  return BY_TYPE[type];
}

const HASH = 0x23; // '#'
const AT = 0x40; // '@'

/**
 * `sysbench.rand.string(template)`: each '#' a random digit, each '@' a random lower-case letter,
 * everything else kept. Writes into `into` (the template's length) and returns it as text.
 */
export function randString(rng: Rng, template: Uint8Array, into: Buffer): string {
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    into[i] = c === HASH ? 48 + ((rng.float() * 10) | 0) : c === AT ? 97 + ((rng.float() * 26) | 0) : c;
  }
  return into.toString('latin1', 0, template.length);
}

/** oltp_common.lua's templates: 10 groups of 11 digits for `c` (119 characters), 5 for `pad` (59). */
export const C_TEMPLATE = Buffer.from(Array.from({ length: 10 }, () => '#'.repeat(11)).join('-'), 'latin1');
export const PAD_TEMPLATE = Buffer.from(Array.from({ length: 5 }, () => '#'.repeat(11)).join('-'), 'latin1');
