/**
 * `--warmup auto[:MAX]`, `--precondition auto[:MAX]` and the steady-state rule's flags on run,
 * steps and sweep: the phase ends when the run is steady (metrics/steady-state.ts), at MAX at most.
 */
import { parseDurationMs } from '../config/duration.js';
import { UsageError } from '../errors.js';
import {
  DEFAULT_STEADY_MAX_MS,
  DEFAULT_STEADY_RULE,
  STEADY_FIGURES,
  type SteadyFigure,
  type SteadyStateRule,
} from '../api.js';
import type { SteadyStateOptions } from '../api.js';
import { parseIntFlag } from './args.js';

export const STEADY_FLAGS = {
  'steady-window': { type: 'string' },
  'steady-range': { type: 'string' },
  'steady-slope': { type: 'string' },
  'steady-on': { type: 'string' },
} as const;

export const STEADY_HELP = `Steady state (--warmup auto, --precondition auto; the SNIA performance-test rule, as fio's
steadystate= applies it): the phase ends at the first interval (--interval) at which, over the
last K intervals, each watched figure's range (max - min) is within --steady-range of its mean
and its least-squares line rises or falls by at most --steady-slope of the mean; after MAX
(default 30m) it ends anyway and the report says steady state was not reached
  --steady-window K  intervals judged together (default 5)
  --steady-range P%  largest range, % of the mean (default 20%)
  --steady-slope P%  largest rise or fall of the fitted line over the window, % of the mean
                     (default 10%)
  --steady-on LIST   the figures watched: tps, response (mean response time) or both (default)`;

type Str = (flag: keyof typeof STEADY_FLAGS | 'warmup' | 'precondition') => string | undefined;

/** A phase's length: a duration, or `auto[:MAX]` (ends on steady state, at MAX at most). */
export function parsePhaseLength(
  flag: 'warmup' | 'precondition',
  text: string,
): { ms: number; auto: boolean } {
  const m = /^\s*auto\s*(?::\s*(.*))?$/i.exec(text);
  if (m === null) return { ms: parseDurationMs(flag, text), auto: false };
  const ms = m[1] === undefined ? DEFAULT_STEADY_MAX_MS : parseDurationMs(flag, m[1]);
  if (ms <= 0) throw new UsageError(`--${flag} auto:MAX needs a MAX above 0s, e.g. auto:10m, not "${text}"`);
  return { ms, auto: true };
}

/** The rule's flags; refused without an `auto` phase to apply them to. */
export function parseSteadyState(
  str: Str,
  warmupAuto: boolean,
  preconditionAuto: boolean,
): SteadyStateOptions | undefined {
  const given = (Object.keys(STEADY_FLAGS) as (keyof typeof STEADY_FLAGS)[]).find(
    (k) => str(k) !== undefined,
  );
  if (!warmupAuto && !preconditionAuto) {
    if (given !== undefined)
      throw new UsageError(`--${given} applies to --warmup auto or --precondition auto; give one of them`);
    return undefined;
  }
  const window = str('steady-window');
  const range = str('steady-range');
  const slope = str('steady-slope');
  const on = str('steady-on');
  const rule: SteadyStateRule = {
    window:
      window === undefined ? DEFAULT_STEADY_RULE.window : parseIntFlag('steady-window', window, 2, 1000),
    rangePct: range === undefined ? DEFAULT_STEADY_RULE.rangePct : parseTolerance('steady-range', range),
    slopePct: slope === undefined ? DEFAULT_STEADY_RULE.slopePct : parseTolerance('steady-slope', slope),
    figures: on === undefined ? DEFAULT_STEADY_RULE.figures : parseFigures(on),
  };
  return { warmup: warmupAuto, precondition: preconditionAuto, rule };
}

function parseTolerance(flag: string, text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(text);
  const n = m ? Number(m[1]) : NaN;
  if (!(n > 0) || n > 1000)
    throw new UsageError(`--${flag} must be a percentage above 0, e.g. 20% or 5, not "${text}"`);
  return n;
}

function parseFigures(text: string): SteadyFigure[] {
  const names = text.split(',').map((s) => s.trim().toLowerCase());
  const wrong = names.find((n) => !(STEADY_FIGURES as readonly string[]).includes(n));
  if (wrong !== undefined || names.length === 0)
    throw new UsageError(
      `--steady-on must list ${STEADY_FIGURES.join(' and/or ')}, e.g. tps,response, not "${text}"`,
    );
  return [...new Set(names as SteadyFigure[])];
}
