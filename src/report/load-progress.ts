import type { LoadProgress, LoadResult } from '../workloads/loader.js';
import { bytesToMB } from '../util/units.js';

/** Live line on a terminal, a plain line every few seconds otherwise. */
export function loadProgressPrinter(stream: NodeJS.WriteStream, intervalS = 5): (p: LoadProgress) => void {
  const live = stream.isTTY === true;
  let lastPrinted = -Infinity;
  let lastPhase = '';
  return (p) => {
    const phaseChanged = p.phase !== lastPhase;
    lastPhase = p.phase;
    if (!live && !phaseChanged && p.elapsedS - lastPrinted < intervalS) return;
    lastPrinted = p.elapsedS;
    const line = formatProgress(p);
    if (live) stream.write(`\r\x1b[2K${line}`);
    else stream.write(`${line}\n`);
  };
}

export function formatProgress(p: LoadProgress): string {
  const elapsed = Math.max(p.elapsedS, 0.001);
  if (p.phase !== 'data') {
    return `load: ${p.phase === 'indexes' ? 'building keys and indexes' : 'analyzing'} (${elapsed.toFixed(0)} s)`;
  }
  const rate = p.rows / elapsed;
  const mbps = bytesToMB(p.bytes) / elapsed;
  const eta =
    p.fraction > 0.02 ? ` ETA ${Math.max(0, (elapsed / p.fraction) * (1 - p.fraction)).toFixed(0)} s` : '';
  // Whole units (TPC-C: warehouses) finish in bursts when several streams share them: the share of
  // the bytes is what moves steadily.
  const share = p.fraction > 0 ? `${(p.fraction * 100).toFixed(0)}%, ` : '';
  return (
    `load: ${share}${p.unitsDone}/${p.units} ${p.unitName}, ${(p.rows / 1e6).toFixed(2)} M rows, ` +
    `${formatRate(rate)} rows/s, ${mbps.toFixed(1)} MB/s,${eta} (${elapsed.toFixed(0)} s)`
  );
}

export function formatLoadResult(r: LoadResult): string {
  return (
    `loaded ${r.scale}: ${r.rows.toLocaleString('en-US')} rows, ` +
    `${bytesToMB(r.bytes).toFixed(0)} MB of ${r.copyFormat} COPY in ${r.seconds.toFixed(1)} s ` +
    `(data ${r.phaseSeconds.data.toFixed(1)} s at ${formatRate(r.rows / r.phaseSeconds.data)} rows/s and ` +
    `${(bytesToMB(r.bytes) / r.phaseSeconds.data).toFixed(1)} MB/s, keys and indexes ` +
    `${r.keysOverlapData ? 'alongside it and ' : ''}${r.phaseSeconds.indexes.toFixed(1)} s after, ` +
    `analyze ${r.phaseSeconds.analyze.toFixed(1)} s after that)`
  );
}

function formatRate(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)} M` : n >= 1e3 ? `${(n / 1e3).toFixed(0)} k` : n.toFixed(0);
}
