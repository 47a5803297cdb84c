/** An outage as the text report and the live progress say it. */
import type { Outage } from '../engine/outages.js';
import { bytesToMB } from '../util/units.js';

const n0 = (x: number): string => Math.trunc(x).toLocaleString('en-US');

/** Seconds since the run started as hh:mm:ss. */
export function clockOf(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const pad = (x: number): string => String(x).padStart(2, '0');
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`;
}

/** What the database did: unreachable (connections lost), failing (its errors) or not answering (timeouts). */
export function outageWhat(o: Pick<Outage, 'cause'>): string {
  return o.cause === 'connection'
    ? 'database unreachable'
    : o.cause === 'server'
      ? 'database failing'
      : 'database not answering';
}

/**
 * "target vm2: database unreachable 12.4 s at 00:41:07, 3,118 transactions failed, reconnected".
 * An outage opened by timeouts says "not answering": the server was reachable but silent.
 */
export function formatOutage(target: string, o: Outage): string {
  const what = outageWhat(o);
  // A server that failed for lack of space kept its connections: it recovered, nothing reconnected.
  const ending = o.recovered
    ? o.cause === 'server'
      ? 'recovered'
      : 'reconnected'
    : 'not recovered by the end of the run';
  return (
    `target ${target}: ${what} ${o.durationS.toFixed(1)} s at ${clockOf(o.startS)}, ` +
    `${n0(o.failed)} transaction${o.failed === 1 ? '' : 's'} failed, ${ending}` +
    (o.error !== undefined ? `; first failure: ${o.error}` : '') +
    (o.serverLog !== undefined ? `; server log: ${o.serverLog}` : '') +
    (o.disk !== undefined ? `; ${diskText(o.disk)}` : '')
  );
}

const mb = (bytes: number): string => `${n0(bytesToMB(bytes))} MB`;

/** "the data directory's disk is full: 0 MB free of 350 MB (/data)". */
function diskText(d: NonNullable<Outage['disk']>): string {
  const room = `${mb(d.freeBytes)} free of ${mb(d.totalBytes)} (${d.path})`;
  return d.full ? `the data directory's disk is FULL: ${room}` : `the data directory's disk has ${room}`;
}
