import { DatabaseError, ExitCode, TxbenchError, errorMessage } from '../errors.js';
import { captureCommand } from './capture.js';
import { replayCommand } from './replay.js';
import { checkCommand } from './check.js';
import { commandLineOf } from './command-line.js';
import { compareCommand } from './compare.js';
import { withConfigFile } from './config-intake.js';
import { ConfigProblems } from '../config/config-file.js';
import { dropCommand } from './drop.js';
import { loadCommand } from './load.js';
import { mergeCommand } from './merge.js';
import { planCommand } from './plan.js';
import { reportCommand } from './report.js';
import { resultsCommand } from './results.js';
import { runCommand } from './run.js';
import { stepsCommand } from './steps.js';
import { sweepCommand } from './sweep.js';
import { toolVersion } from '../util/tool-version.js';

/** A command: its arguments, and the whole command line (passwords hidden) for run.json. */
export type Command = (argv: string[], commandLine: string) => Promise<number>;

export const COMMANDS: Readonly<Record<string, Command>> = {
  run: runCommand,
  steps: stepsCommand,
  sweep: sweepCommand,
  load: loadCommand,
  check: checkCommand,
  drop: dropCommand,
  results: resultsCommand,
  compare: compareCommand,
  report: reportCommand,
  merge: mergeCommand,
  capture: captureCommand,
  replay: replayCommand,
  plan: planCommand,
};

const HELP = `txbench: a TPC-C-derived OLTP benchmark (not comparable with published TPC-C results)

  txbench run     load a small default scale if needed, then run (embedded PostgreSQL by default);
                  several --db/--data-dir targets are driven at once and added up
  txbench steps   one measurement per user count (--users 1,20,50,100), the scaling table and knee
  txbench sweep   one measurement per value of a server setting (--set shared_buffers=256MB,1GB)
  txbench load    create the schema and load --warehouses N
  txbench check   TPC-C consistency conditions; exit 1 on a violation
  txbench drop    remove the TPC-C schema
  txbench results list the runs in a results directory; tag them
  txbench compare the reviewers' table across runs (text, Markdown, CSV), with drive costs
  txbench merge   one run from the run directories of its shards (run --shard I/N on several
                  load machines)
  txbench report  one self-contained HTML page with charts from run or results directories
  txbench capture capture a workload (PostgreSQL logs, or live from PostgreSQL, MySQL/MariaDB,
                  SQL Server) into a workload file
  txbench replay  replay a workload file onto a database, with a fidelity report
  txbench plan    run a plan of these commands, resumable (docs/plans.md)

Run \`txbench COMMAND --help\` for a command's flags. Every command also takes --config FILE: its
options from a YAML or JSON file (schema/txbench-config.schema.json; flags on the command line win)
and the targets listed there (--target LABEL picks some).`;

const CONFIG_HELP = `Every command:
  --config FILE      options (by long flag name) and targets from a YAML or JSON file, checked
                     against schema/txbench-config.schema.json; flags given here win
  --target LABEL     with --config: only the file's target(s) with this label`;

/** Runs one command; returns the process exit code. Errors become one line on stderr. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    console.log(HELP);
    return command === undefined ? ExitCode.usage : ExitCode.ok;
  }
  if (command === '--version' || command === '-v') {
    console.log(toolVersion());
    return ExitCode.ok;
  }
  const handler = COMMANDS[command];
  if (handler === undefined) {
    console.error(`txbench: unknown command "${command}"; use one of ${Object.keys(COMMANDS).join(', ')}`);
    return ExitCode.usage;
  }
  try {
    const code = await handler(await withConfigFile(command, rest), commandLineOf(argv));
    // Every command reads --config the same way (config-intake.ts): said once here, not in each help.
    if (rest.includes('--help') || rest.includes('-h')) console.log(CONFIG_HELP);
    return code;
  } catch (err) {
    if (err instanceof ConfigProblems) {
      for (const line of err.lines) console.error(`txbench ${command}: ${line}`);
      return err.exitCode;
    }
    const known = asTxbenchError(err);
    console.error(`txbench ${command}: ${known.message}`);
    if (!(err instanceof TxbenchError) && process.env.TXBENCH_DEBUG) console.error(err);
    return known.exitCode;
  }
}

/** Database-side failures (lost connections, server errors) exit 3; anything unexpected says so. */
function asTxbenchError(err: unknown): TxbenchError {
  if (err instanceof TxbenchError) return err;
  const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : '';
  if (/^(E[A-Z]+|CONNECTION_[A-Z_]+|[0-9A-Z]{5})$/.test(code)) {
    return new DatabaseError(`${errorMessage(err)} (${code})`);
  }
  return new TxbenchError(
    `internal error: ${errorMessage(err)} (set TXBENCH_DEBUG=1 for details)`,
    ExitCode.database,
  );
}
