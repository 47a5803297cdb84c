import { describe, expect, it } from 'vitest';
import { RUN_SCHEMA_VERSION } from '../../src/results/run-dir.js';
import {
  device,
  HOST,
  intervalDevice,
  monitoredInterval,
  runJson,
  runConfig,
  stepsJson,
  sweepJson,
  targetsJson,
  type FixtureRun,
} from './run-fixtures.js';
import { runSchema, runSchemaCheck } from '../../src/results/run-schema.js';

const runCheck = runSchemaCheck();
const schemaErrors = (value: unknown): string[] => runCheck.errors(value);

/** A deep copy with one field removed, by its path. */
function without(value: object, ...keys: string[]): Record<string, unknown> {
  const copy = structuredClone(value) as Record<string, unknown>;
  let at: Record<string, unknown> = copy;
  for (const k of keys.slice(0, -1)) at = at[k] as Record<string, unknown>;
  delete at[keys.at(-1)!];
  return copy;
}

const monitored: FixtureRun = {
  devices: [device('vda', 'data+log')],
  host: HOST,
  monitor: { source: 'local /proc', notes: [] },
};

describe('schema/run.schema.json', () => {
  it("requires TPC-C's own fields of TPC-C runs only", () => {
    const without = (workload: string): Record<string, unknown> => {
      const json = runJson();
      const config = { ...(json.config as Record<string, unknown>) };
      const summary = { ...(json.summary as Record<string, unknown>) };
      for (const k of ['warehouses', 'mode']) delete config[k];
      for (const k of ['tpmC', 'nopm', 'ceilingTpmC', 'efficiencyPct']) delete summary[k];
      return { ...json, workload, config, summary };
    };
    expect(schemaErrors(without('sysbench'))).toEqual([]);
    const errors = schemaErrors(without('tpcc')).join('\n');
    for (const field of ['warehouses', 'mode', 'tpmC', 'nopm']) expect(errors).toContain(field);
  });

  it('documents the version txbench writes', () => {
    expect(runSchema.properties.schemaVersion.const).toBe(RUN_SCHEMA_VERSION);
  });

  it.each([
    ['run', runJson({ thinkScale: 1 })],
    ['run, non-standard mix', runJson({ nonstandardMix: true })],
    [
      'run, in progress',
      {
        schemaVersion: 3,
        kind: 'run',
        status: 'running',
        startedAt: '2024-05-01T12:00:00.000Z',
        config: runConfig(),
        writer: { pid: 4242, host: 'loadgen1' },
      },
    ],
    [
      'sweep, just started (no config yet)',
      {
        schemaVersion: 3,
        kind: 'sweep',
        status: 'running',
        startedAt: '2024-05-01T12:00:00.000Z',
        writer: { pid: 4242, host: 'loadgen1' },
      },
    ],
    ['run, incomplete drain', runJson({ status: 'incomplete-drain' })],
    ['targets', targetsJson([{ target: 'vm1' }, { target: 'vm2' }])],
    ['steps', stepsJson('ssd', [{ terminals: 1 }, { terminals: 20 }])],
    [
      'sweep',
      sweepJson('pg', 'shared_buffers', [
        ['64MB', {}],
        ['256MB', {}],
      ]),
    ],
  ])('accepts a %s', (_, value) => {
    expect(schemaErrors(value)).toEqual([]);
  });

  it.each([
    ['devices, host, database and monitor', runJson(monitored)],
    [
      'no block device found',
      runJson({ devices: [], monitor: { source: 'local /proc', notes: ['tmpfs: no block device'] } }),
    ],
    [
      'data and log on two disks, one without reads',
      runJson({
        devices: [
          device('vda', 'data'),
          device('vdb', 'log', {
            readIops: 0,
            readLatencyMs: null,
            readLatencyMsP50: null,
            readLatencyMsP99: null,
          }),
        ],
      }),
    ],
    [
      'a short window: no p99, the slowest second as max, and the seconds counted',
      runJson({
        devices: [
          device('vda', 'data+log', {
            readLatencyMsP99: null,
            readLatencyMsMax: 2.5,
            readLatencySeconds: 60,
            writeLatencyMsP99: null,
            writeLatencyMsMax: 3.1,
            writeLatencySeconds: 60,
          }),
        ],
      }),
    ],
    [
      'an md array with its legs beneath it',
      runJson({
        devices: [
          device('md0', 'data+log', { members: [device('sda1', 'data+log'), device('sdb1', 'data+log')] }),
        ],
      }),
    ],
    [
      'a remote host (no txbench CPU) and unread database figures',
      runJson({ host: { ...HOST, txbenchCpuPct: null } }, {}),
    ],
    [
      'monitored intervals',
      runJson(monitored, {
        intervals: [
          monitoredInterval(),
          monitoredInterval({
            host: null,
            database: null,
            devices: [],
            missing: ['node_exporter http://db1:9100 unreachable'],
          }),
        ],
      }),
    ],
    [
      'monitored steps',
      stepsJson('ssd', [
        { terminals: 1, ...monitored },
        { terminals: 20, ...monitored },
      ]),
    ],
    [
      'monitored targets',
      targetsJson([
        { target: 'vm1', ...monitored },
        { target: 'vm2', ...monitored },
      ]),
    ],
    ['a monitored sweep', sweepJson('pg', 'shared_buffers', [['64MB', monitored]])],
  ])('accepts monitoring figures (schemaVersion 3): %s', (_, value) => {
    expect(schemaErrors(value)).toEqual([]);
  });

  it('allows fields it does not list (other versions of txbench add them)', () => {
    const run = runJson({}, { monitor: { devices: [] } });
    (run.summary as Record<string, unknown>).qps = 1234;
    expect(schemaErrors(run)).toEqual([]);
  });

  it('requires what this version writes: the drain, the ceiling, the CPU and the device', () => {
    expect(schemaErrors(without(runJson(), 'drain')).join()).toMatch(/required property 'drain'/);
    const run = runJson();
    delete (run.summary as Record<string, unknown>).ceilingTpmC;
    expect(schemaErrors(run).join()).toMatch(/required property 'ceilingTpmC'/);
    expect(schemaErrors(runJson({}, { environment: {} })).join()).toMatch(/required property 'device'/);
    expect(schemaErrors(runJson({}, { environment: { device: { kind: 'remote' } } })).join()).toMatch(
      /reason/,
    );
  });

  it.each([
    ['a newer schemaVersion', { ...runJson(), schemaVersion: 4 }, /schemaVersion must be equal to constant/],
    ['an older schemaVersion', { ...runJson(), schemaVersion: 2 }, /schemaVersion must be equal to constant/],
    [
      'a device without its write latency',
      runJson({ devices: [without(device('vda', 'data'), 'writeLatencyMs') as never] }),
      /summary\/devices\/0 must have required property 'writeLatencyMs'/,
    ],
    [
      'a device with an unknown role',
      runJson({ devices: [device('vda', 'disk' as never)] }),
      /summary\/devices\/0\/role must be equal to one of the allowed values/,
    ],
    [
      'a window device without its p99',
      runJson({ devices: [without(device('vda', 'data'), 'writeLatencyMsP99') as never] }),
      /summary\/devices\/0 must have required property 'writeLatencyMsP99'/,
    ],
    [
      'a fractional count of seconds',
      runJson({ devices: [device('vda', 'data', { writeLatencySeconds: 1.5 })] }),
      /summary\/devices\/0\/writeLatencySeconds must be integer/,
    ],
    [
      'negative IOPS',
      runJson({ devices: [device('vda', 'data', { readIops: -1 })] }),
      /summary\/devices\/0\/readIops must be >= 0/,
    ],
    [
      'host figures without page cache',
      runJson({ host: without({ ...HOST }, 'pageCacheMB') as never }),
      /summary\/host must have required property 'pageCacheMB'/,
    ],
    [
      'a monitor without its source',
      runJson({ monitor: { notes: [] } as never }),
      /summary\/monitor must have required property 'source'/,
    ],
    [
      'an interval whose database figure is not a number',
      runJson({}, { intervals: [monitoredInterval({ database: { walBytes: 'lots' as never } })] }),
      /intervals\/0\/database\/walBytes must be number/,
    ],
    [
      'an interval whose device has no name',
      runJson(
        {},
        {
          intervals: [
            monitoredInterval({ devices: [without(intervalDevice('vda', 'data'), 'name') as never] }),
          ],
        },
      ),
      /intervals\/0\/devices\/0 must have required property 'name'/,
    ],
    ['no kind', without(runJson(), 'kind'), /must have required property 'kind'/],
    ['an unknown kind', { ...runJson(), kind: 'matrix' }, /kind must be equal to one of the allowed values/],
    ['an unknown status', runJson({ status: 'done' }), /status must be equal to one of the allowed values/],
    ['no summary.tps', without(runJson(), 'summary', 'tps'), /summary must have required property 'tps'/],
    [
      'no config.thinkScale',
      without(runJson(), 'config', 'thinkScale'),
      /config must have required property 'thinkScale'/,
    ],
    [
      'a non-boolean nonstandardMix',
      runJson({}, { config: { ...runConfig(), nonstandardMix: 'yes' } }),
      /nonstandardMix must be boolean/,
    ],
    [
      'a target without its report',
      without(targetsJson([{}]), 'targets', '0', 'report'),
      /targets\/0 must have required property 'report'/,
    ],
    [
      'a step whose report has no status',
      without(stepsJson('x', [{}]), 'steps', '0', 'report', 'status'),
      /steps\/0\/report must have required property 'status'/,
    ],
    [
      'a sweep without its setting',
      without(sweepJson('x', 's', [['1', {}]]), 'config', 'setting'),
      /config must have required property 'setting'/,
    ],
  ])('refuses %s', (_, value, pattern) => {
    expect(schemaErrors(value).join('\n')).toMatch(pattern);
  });
});
