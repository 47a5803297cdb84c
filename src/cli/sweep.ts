import { UsageError } from '../errors.js';
import { runSweep } from '../api.js';
import { parseRepeatFlags, refuseRepeatWith } from './repeat-flags.js';
import { parseRunOptions, RUN_FLAGS, RUN_OPTIONAL_VALUES } from './run.js';
import { withRunOutputs } from './run-outputs.js';
import { targetOptionsFrom } from './target.js';
import { parseWithWorkload, WORKLOAD_HELP, workloadOptionsHelp } from './workload-flags.js';

export const SWEEP_HELP = `txbench sweep --set NAME=V1,V2,... [run options]

Runs the same measurement once per value of a server setting, and prints TPS, response time and
the disks' MB/s and latency against the setting. PostgreSQL: ALTER SYSTEM, then a reload, or a restart when the setting needs
one (the embedded server restarts itself; another server needs --restart-cmd). MySQL/MariaDB:
SET GLOBAL (e.g. innodb_buffer_pool_size). SQL Server: sp_configure (e.g. 'max server memory').
  --set NAME=V1,V2   the setting and its values (required), e.g. shared_buffers=256MB,1GB
  --restart-cmd CMD  shell command that restarts an external server (when the setting needs it)
  every \`txbench run\` option applies to each value (--workload and the workload's options too);
  --repeat N runs the whole sweep N times and gives each value's figures as mean ± 95% interval
${WORKLOAD_HELP}`;

export const SWEEP_FLAGS = {
  ...RUN_FLAGS,
  set: { type: 'string' },
  'restart-cmd': { type: 'string' },
} as const;

export async function sweepCommand(argv: string[], commandLine?: string): Promise<number> {
  const { values, workload, ref, workloadOptions } = await parseWithWorkload(
    'sweep',
    argv,
    SWEEP_FLAGS,
    true,
    RUN_OPTIONAL_VALUES,
  );
  if (values.help) {
    console.log(`${SWEEP_HELP}\n${workloadOptionsHelp(workload)}`);
    return 0;
  }
  const m = /^([A-Za-z_][\w.]*)=(.+)$/.exec(typeof values.set === 'string' ? values.set : '');
  if (!m)
    throw new UsageError('--set needs NAME=V1,V2,...; e.g. `txbench sweep --set shared_buffers=256MB,1GB`');
  const setting = m[1]!;
  const settingValues = m[2]!
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  const options = parseRunOptions(values, workload, ref, workloadOptions);
  const out = typeof values.out === 'string' ? values.out : 'results';
  const json = typeof values.json === 'string' ? values.json : undefined;
  const restartCmd = typeof values['restart-cmd'] === 'string' ? values['restart-cmd'] : undefined;
  const list = targetOptionsFrom(argv);
  if (list.length > 1) throw new UsageError('a sweep drives one target; give one --db or --data-dir');
  const repeat = parseRepeatFlags(values);
  refuseRepeatWith(repeat, list.length, false);
  const sweep = { setting, values: settingValues, restartCmd };
  return withRunOutputs(options, out, (outputs) =>
    runSweep({ options, targets: list, sweep, resultsDir: out, json, repeat, commandLine }, outputs),
  );
}
