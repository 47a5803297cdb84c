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

  it('finds the imports it checks (the scan is not vacuous)', () => {
    expect(importsUnder('engine').some((i) => i.target === path.join('random', 'rng.js'))).toBe(true);
  });
});
