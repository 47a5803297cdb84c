/**
 * What each command-line flag's value is, as a JSON Schema fragment with a one-line description:
 * the config file's schema (schema/txbench-config.schema.json) is generated from these and the
 * commands' flag tables (src/cli/commands.ts), so an editor can complete and check the file and
 * `--config` reports a wrong value the way the flag would. `errorMessage` is the line a wrong
 * value gets (VS Code and yaml-language-server show it too).
 */

/** A JSON Schema fragment (draft-07), as plain data. */
export type JsonSchema = { [key: string]: JsonValue };
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface FlagDoc {
  description: string;
  schema: JsonSchema;
  /**
   * Only inside a command's section, never at the top level: the flag means different things to
   * different commands (`out` is a results directory for run, a file for report).
   */
  sectionOnly?: boolean;
}

const DURATION_PATTERN = '^\\s*(\\d+(\\.\\d+)?|(\\d+(\\.\\d+)?(ms|s|m|h))+)\\s*$';

const duration = (description: string): FlagDoc => ({
  description,
  schema: {
    type: ['string', 'number'],
    pattern: DURATION_PATTERN,
    minimum: 0,
    errorMessage: 'must be a duration such as 30s, 5m, 2h or 1h30m (a bare number is seconds)',
  },
});

/** A phase's length: a duration, or auto[:MAX] to end it on steady state (at MAX at most). */
const phaseLength = (description: string): FlagDoc => ({
  description,
  schema: {
    type: ['string', 'number'],
    pattern: `${DURATION_PATTERN}|^\\s*auto\\s*(:${DURATION_PATTERN.slice(1, -1)})?\\s*$`,
    minimum: 0,
    errorMessage:
      'must be a duration such as 30s, 5m, 2h or 1h30m (a bare number is seconds), or auto / auto:MAX to end on steady state',
  },
});

const wholeNumber = (description: string, minimum: number, maximum?: number): FlagDoc => ({
  description,
  schema: {
    type: 'integer',
    minimum,
    ...(maximum === undefined ? {} : { maximum }),
    errorMessage:
      maximum === undefined
        ? `must be a whole number >= ${minimum}`
        : `must be a whole number from ${minimum} to ${maximum}`,
  },
});

const text = (description: string, extra: { sectionOnly?: boolean } = {}): FlagDoc => ({
  description,
  schema: { type: 'string', minLength: 1, errorMessage: 'must be a text value' },
  ...extra,
});

const oneOf = (description: string, values: readonly string[]): FlagDoc => ({
  description,
  schema: { type: 'string', enum: [...values], errorMessage: `must be one of ${values.join(', ')}` },
});

const onOff = (description: string): FlagDoc => ({
  description,
  schema: { type: 'boolean', errorMessage: 'must be true or false' },
});

const percentage = (description: string): FlagDoc => ({
  description,
  schema: {
    type: ['number', 'string'],
    minimum: 0,
    maximum: 100,
    pattern: '^\\s*\\d+(\\.\\d+)?\\s*%?\\s*$',
    errorMessage: 'must be a percentage from 0 to 100, e.g. 1 or "0.5%"',
  },
});

/** Every flag any command takes (except the target flags, which are `targets:`), by long name. */
export const FLAG_DOCS: Readonly<Record<string, FlagDoc>> = {
  workload: text('tpcc (default), tpcb, sysbench, or the path of a workload file (.ts, .js, .mjs)'),
  terminals: wholeNumber("virtual users (default: the workload's; TPC-C 10 per warehouse)", 1, 10_000_000),
  connections: wholeNumber('connection pool the terminals share (default min(terminals, 100))', 1, 100_000),
  'think-scale': {
    description: 'keying and think times x X: 1 = spec, 0.25 = quarter, 0 = none (default 0)',
    schema: { type: 'number', minimum: 0, errorMessage: 'must be a number >= 0 (1 = spec, 0 = none)' },
  },
  warmup: phaseLength(
    'warm-up before measuring (default 15s); auto[:MAX]: until throughput and response time are steady, at most MAX (default 30m)',
  ),
  duration: duration('run: the measured window (default 90s); capture: how long to capture live'),
  ramp: duration('spread terminal starts over this time (default 0s)'),
  interval: duration('progress and time-series interval (default 10s)'),
  precondition: phaseLength(
    'a phase before warm-up whose figures are kept but not scored; auto[:MAX]: until steady, at most MAX (default 30m)',
  ),
  'steady-window': wholeNumber('steady state: the intervals judged together (default 5)', 2, 1000),
  'steady-range': {
    ...percentage('steady state: the largest range (max - min) of a figure, % of its mean (default 20%)'),
    schema: {
      type: ['number', 'string'],
      exclusiveMinimum: 0,
      pattern: '^\\s*\\d+(\\.\\d+)?\\s*%?\\s*$',
      errorMessage: 'must be a percentage above 0, e.g. 20 or "20%"',
    },
  },
  'steady-slope': {
    ...percentage(
      'steady state: the largest rise or fall of the fitted line over the window, % of the mean (default 10%)',
    ),
    schema: {
      type: ['number', 'string'],
      exclusiveMinimum: 0,
      pattern: '^\\s*\\d+(\\.\\d+)?\\s*%?\\s*$',
      errorMessage: 'must be a percentage above 0, e.g. 10 or "10%"',
    },
  },
  'steady-on': {
    description: 'steady state: the figures watched, tps and/or response (default both)',
    schema: {
      type: ['string', 'array'],
      items: { enum: ['tps', 'response'] },
      minItems: 1,
      pattern: '^\\s*(tps|response)(\\s*,\\s*(tps|response))?\\s*$',
      errorMessage: 'must be tps, response or tps,response',
    },
  },
  'txn-timeout': duration('cancel a transaction unanswered after this time (default 60s; 0 = never)'),
  mix: {
    description:
      "percentages of the workload's transaction types, in its order (TPC-C: New-Order, Payment, Order-Status, Delivery, Stock-Level), as a list or A,B,C,D,E",
    schema: {
      type: ['string', 'array'],
      items: { type: 'number', minimum: 0, maximum: 100 },
      minItems: 1,
      pattern: '^\\s*\\d+(\\.\\d+)?(\\s*,\\s*\\d+(\\.\\d+)?)*\\s*$',
      errorMessage: 'must be a list of percentages, e.g. [45, 43, 4, 4, 4] or "45,43,4,4,4"',
    },
  },
  'allow-nonstandard-mix': onOff('run a mix below the spec minimums, marked non-standard in run.json'),
  seed: wholeNumber("random seed (run: the terminals' inputs; load: the population)", 0, 2 ** 31 - 1),
  out: text(
    'run/steps/sweep/replay: results directory (default results); report: the HTML file; capture: the workload file; merge: the merged run directory',
    { sectionOnly: true },
  ),
  json: text('write the report or results as JSON to this file', { sectionOnly: true }),
  // Only in a run/steps/sweep section: a top-level `check:` is the section of `txbench check`.
  check: { ...onOff('run `txbench check` after the run; exit 1 if it fails'), sectionOnly: true },
  'metrics-port': wholeNumber('serve the live run in the Prometheus text format on this port', 1, 65535),
  'metrics-host': text('the address the Prometheus endpoint listens on (default 127.0.0.1)'),
  dashboard: {
    description: 'serve the live report on 127.0.0.1 on this port; true: on a free port',
    schema: {
      type: ['integer', 'boolean'],
      minimum: 0,
      maximum: 65535,
      errorMessage: 'must be a port from 0 to 65535, or true for a free port',
    },
  },
  'no-monitor': onOff('sample no disk, host or database figures'),
  'on-error': oneOf(
    'continue (default): count a failed transaction and carry on; stop: end at the first lost connection',
    ['continue', 'stop'],
  ),
  'max-errors': wholeNumber('fail the run (exit 1) with more than N failed transactions', 0),
  'max-error-rate': percentage('fail the run (exit 1) when more than this percentage of transactions failed'),
  repeat: wholeNumber(
    'measure this many times (each with its own warm-up), kept as rep-1..rep-N beside repeat.json: every figure as mean ± 95% interval over them',
    1,
    1000,
  ),
  reload: onOff('load the database again (same scale, same seed) before each repetition, or before the run'),
  users: {
    description: 'steps: the terminal counts, one measurement each, e.g. [1, 20, 50, 100]',
    schema: {
      type: ['array', 'string'],
      items: { type: 'integer', minimum: 1, maximum: 10_000_000 },
      minItems: 1,
      pattern: '^\\s*\\d+(\\s*,\\s*\\d+)*\\s*$',
      errorMessage: 'must be a list of whole numbers >= 1, e.g. [1, 20, 50, 100]',
    },
  },
  set: {
    description: 'sweep: the server setting and its values, NAME=V1,V2 (e.g. shared_buffers=256MB,1GB)',
    schema: {
      type: 'string',
      pattern: '^[A-Za-z_][\\w.]*=.+$',
      errorMessage: 'must be NAME=V1,V2,..., e.g. shared_buffers=256MB,1GB',
    },
  },
  'restart-cmd': text('sweep: shell command that restarts an external server'),
  jobs: wholeNumber('load: parallel generator/COPY streams (default: CPU count)', 1, 256),
  replace: onOff('load: drop an existing (or interrupted) schema of the workload first'),
  'after-load': onOff('check: also the checks that hold only right after a load'),
  tag: {
    description: 'results: only runs with all these tags',
    schema: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      errorMessage: 'must be a list of tags, e.g. [baseline]',
    },
  },
  format: oneOf('compare: the table format', ['text', 'markdown', 'csv']),
  sort: oneOf('compare: the row order', ['tps', 'tpmC', 'avg', 'label']),
  cost: text('compare/report: the drive-cost YAML file'),
  'from-log': onOff('capture: read PostgreSQL log files (given as operands) instead of a live server'),
  'redact-literals': onOff('capture: replace literals and parameters with typed placeholders'),
  restore: onOff(
    'capture: put back what a killed live capture left changed on this server, and nothing else',
  ),
  speed: {
    description: 'replay: X times as fast (default 1); max = no waits',
    schema: {
      type: ['number', 'string'],
      exclusiveMinimum: 0,
      pattern: '^(max|\\d+(\\.\\d+)?)$',
      errorMessage: 'must be a number above 0, or max',
    },
  },
  // Issue 15 items 1 and 2 (the workers and shards branches); in the schema before the flags land.
  workers: wholeNumber('worker threads that share the terminals (default: as many as needed)', 1, 1024),
  shard: {
    description:
      'run the I-th of N slices of the terminals: "I/N" (1-based), or {index, base, count} where index may come from the environment (e.g. a Kubernetes Indexed Job\'s JOB_COMPLETION_INDEX, base 0)',
    schema: {
      oneOf: [
        { type: 'string', pattern: '^\\s*\\d+\\s*/\\s*\\d+\\s*$' },
        {
          type: 'object',
          properties: {
            index: { type: 'integer', minimum: 0, description: 'this shard, counted from base' },
            base: { enum: [0, 1], default: 1, description: '0 when index counts from 0 (Kubernetes)' },
            count: { type: 'integer', minimum: 1, description: 'the number of shards' },
          },
          required: ['index', 'count'],
          additionalProperties: false,
        },
      ],
      errorMessage:
        'must be "I/N" (e.g. "3/8") or {index, base: 0 or 1, count}, e.g. {index: ${JOB_COMPLETION_INDEX}, base: 0, count: 8}',
    },
  },
  'start-at': {
    description:
      'hold every shard until this wall-clock time (ISO 8601, e.g. 2026-12-01T22:00:00Z) so their windows line up',
    schema: {
      type: 'string',
      pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})$',
      errorMessage: 'must be an ISO 8601 time with its zone, e.g. 2026-12-01T22:00:00Z',
    },
  },
  'allow-partial': onOff('merge: merge the shards there are, naming those missing'),
  resume: {
    ...onOff('plan: carry on a plan that stopped (done steps are not run again)'),
    sectionOnly: true,
  },
  'dry-run': {
    ...onOff('plan: print the steps and an estimate of the time; run nothing'),
    sectionOnly: true,
  },
  force: {
    ...onOff('plan: with resume, carry on even if the plan changed a step already done'),
    sectionOnly: true,
  },
};

/** Where a flag means something else in one command than FLAG_DOCS says. */
export const COMMAND_FLAG_DOCS: Readonly<Record<string, Readonly<Record<string, FlagDoc>>>> = {
  results: { json: onOff('print the runs as JSON') },
  replay: {
    warmup: duration('the first DUR of the replay is not measured (default 0s)'),
    duration: duration('measure at most this long (default: until every session is done)'),
  },
};
