import { describe, expect, it } from 'vitest';
import { RUN_SCHEMA_VERSION } from '../../src/results/run-dir.js';
import { runJson, runConfig, stepsJson, sweepJson, targetsJson } from './run-fixtures.js';
import { runSchema, schemaErrors } from './run-schema.js';

/** A deep copy with one field removed, by its path. */
function without(value: Record<string, unknown>, ...keys: string[]): Record<string, unknown> {
  const copy = structuredClone(value);
  let at: Record<string, unknown> = copy;
  for (const k of keys.slice(0, -1)) at = at[k] as Record<string, unknown>;
  delete at[keys.at(-1)!];
  return copy;
}

describe('schema/run.schema.json', () => {
  it('documents the version txbench writes', () => {
    expect(runSchema.properties.schemaVersion.const).toBe(RUN_SCHEMA_VERSION);
  });

  it.each([
    ['run', runJson({ thinkScale: 1 })],
    ['run, non-standard mix', runJson({ nonstandardMix: true })],
    [
      'run, in progress',
      {
        schemaVersion: 2,
        kind: 'run',
        status: 'running',
        startedAt: '2024-05-01T12:00:00.000Z',
        config: runConfig(),
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
    ['a newer schemaVersion', { ...runJson(), schemaVersion: 3 }, /schemaVersion must be equal to constant/],
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
