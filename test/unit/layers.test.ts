import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');

/** Every relative import of the .ts files under `dir`, as paths relative to src/. */
function importsUnder(dir: string): { file: string; target: string }[] {
  const out: { file: string; target: string }[] = [];
  for (const entry of readdirSync(path.join(SRC, dir), { recursive: true, encoding: 'utf8' })) {
    if (!entry.endsWith('.ts')) continue;
    const file = path.join(SRC, dir, entry);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)) {
      out.push({
        file: path.relative(SRC, file),
        target: path.relative(SRC, path.resolve(path.dirname(file), m[1]!)),
      });
    }
  }
  return out;
}

describe('layers', () => {
  // The engine, metrics and the random generator know no workload (DESIGN.md, layer 6).
  it.each(['engine', 'metrics', 'random'])('%s/ imports nothing from workloads/', (dir) => {
    const offending = importsUnder(dir).filter((i) => i.target.startsWith('workloads'));
    expect(offending).toEqual([]);
  });

  // Nothing outside workloads/ imports a particular workload (issue 13): the CLI, the run path,
  // the results store and the reports reach workloads through the registry and the interface.
  // bench/ measures TPC-C itself against pgbench and is the one exception.
  it.each(['cli', 'run', 'results', 'report', 'engine', 'dialects', 'monitor', 'targets', 'config'])(
    '%s/ imports no particular workload',
    (dir) => {
      const offending = importsUnder(dir).filter((i) =>
        /^workloads[/\\](?!workload\.js|registry\.js|options\.js|executor\.js|loader\.js|checks\.js|presence\.js|load-record\.js|schema\.js)/.test(
          i.target,
        ),
      );
      expect(offending).toEqual([]);
    },
  );

  it('the workload scan sees the generic imports (not vacuous)', () => {
    expect(importsUnder('cli').some((i) => i.target === path.join('workloads', 'registry.js'))).toBe(true);
  });

  it('finds the imports it checks (the scan is not vacuous)', () => {
    expect(importsUnder('engine').some((i) => i.target === path.join('random', 'rng.js'))).toBe(true);
  });
});
