/**
 * The live progress of a run on stderr, as a run's output: the run's header, warnings, phases,
 * steady state, outages as they open and end, and one line per interval. With several runs at once each line starts with the
 * run's label; a single run on a terminal redraws one interval line in place.
 */
import type { Output } from '../results/run-events.js';
import { clockOf, formatOutage, outageWhat } from './outage-line.js';
import { formatInterval, formatRunHeader } from './run-summary.js';
import { formatSteadyState } from './steady-state-line.js';

export function progressOutput(prefix: string, stream: NodeJS.WriteStream = process.stderr): Output {
  const live = stream.isTTY === true && prefix === '';
  const line = (text: string): void => void stream.write(`${text}\n`);
  return {
    name: 'progress',
    event: (event) => {
      switch (event.kind) {
        case 'start':
          line(`${prefix}${formatRunHeader(event.config)}`);
          return;
        case 'warning':
          line(`${prefix}warning: ${event.message}`);
          return;
        case 'steady':
          if (live) stream.write('\n');
          line(
            `${prefix}${formatSteadyState(event.report, event.phase === 'warmup' ? 'warm-up' : 'preconditioning')}`,
          );
          return;
        case 'phase':
          if (live) stream.write('\n');
          if (event.phase !== 'done') line(`${prefix}-- ${event.phase}`);
          return;
        case 'outage': {
          // Said as it happens: a reviewer watching a multi-hour run sees the database go and come back.
          if (live) stream.write('\n');
          const { outage, target } = event;
          line(
            event.edge === 'start'
              ? `${prefix}-- outage: target ${target}: ${outageWhat(outage)} since ${clockOf(outage.startS)}` +
                  (outage.error !== undefined ? `; first failure: ${outage.error}` : '')
              : `${prefix}-- outage over: ${formatOutage(target, outage)}`,
          );
          return;
        }
        case 'interval': {
          const { interval } = event;
          // A sliver of an interval cut off by a phase change says nothing: kept in the file, not on screen.
          if (interval.tps === 0 && (interval.phase === 'drain' || interval.seconds < 1)) return;
          if (live) stream.write(`\r\x1b[2K${formatInterval(interval)}`);
          else line(`${prefix}${formatInterval(interval)}`);
          return;
        }
        default:
          return;
      }
    },
  };
}
