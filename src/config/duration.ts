import { UsageError } from '../errors.js';

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses `500ms`, `30s`, `5m`, `2h`, `1h30m` or a bare number of seconds into milliseconds. */
export function parseDurationMs(flag: string, text: string): number {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const parts = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$/.test(trimmed)
    ? [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)]
    : [];
  if (parts.length === 0) {
    throw new UsageError(`--${flag} must be a duration such as 30s, 5m, 2h or 1h30m, not "${text}"`);
  }
  return Math.round(parts.reduce((ms, [, n, unit]) => ms + Number(n) * UNIT_MS[unit!]!, 0));
}

/** 90000 → "1m30s", for printing. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  let s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s || (!h && !m) ? `${s}s` : ''}`;
}
