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

function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}

/** Files over 500 lines today (issue 31, item 5): each is to be split. */
const OVER_500_LINES: readonly string[] = [];

/** report/ → run/ and run/ → report/ imports today (issue 31, item 1): each is to be undone. */
const REPORT_RUN_TODO: readonly string[] = [];

/** What cli/ imports today beyond the API, config, printers, errors and util (issue 31, items 4 and 7). */
const CLI_TODO: readonly string[] = [];

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
        /^workloads[/\\](?!workload\.js|registry\.js|options\.js|executor\.js|fault-policy\.js|loader\.js|checks\.js|presence\.js|load-record\.js|schema\.js)/.test(
          i.target,
        ),
      );
      expect(offending).toEqual([]);
    },
  );

  it('the workload scan sees the generic imports (not vacuous)', () => {
    // cli/ reaches workloads through the API now; the run path imports the generic modules.
    expect(importsUnder('run').some((i) => i.target === path.join('workloads', 'checks.js'))).toBe(true);
  });

  // Monitoring reads the database through what the run hands it, never a dialect (issue 31, item 7).
  it('monitor/ imports nothing from dialects/', () => {
    expect(importsUnder('monitor').filter((i) => i.target.startsWith('dialects'))).toEqual([]);
  });

  // report/ reads results; of workloads/ it sees only the interfaces' types, never a workload.
  it('report/ imports of workloads/ only the interfaces', () => {
    const offending = importsUnder('report').filter(
      (i) => i.target.startsWith('workloads') && !/^workloads[/\\](workload|loader)\.js$/.test(i.target),
    );
    expect(offending).toEqual([]);
  });

  // cli/ parses flags, calls the API and prints (DESIGN.md, layer 1): it may import the API, config/,
  // the printers of report/, errors.ts and util/. What it imports beyond that today is listed as
  // to-do: the test fails on a new one, and on a listed one that is gone (so the list only shrinks).
  it('cli/ imports only the API, config, printers, errors and util (and the listed to-dos)', () => {
    const allowed = /^(api\.js|errors\.js|config[/\\]|report[/\\]|util[/\\])/;
    const found = [
      ...new Set(
        importsUnder('cli')
          .filter((i) => !i.target.startsWith('cli') && !allowed.test(i.target))
          .map((i) => `${toPosix(i.file)} -> ${toPosix(i.target)}`),
      ),
    ].sort();
    expect(found).toEqual([...CLI_TODO].sort());
  });

  // report/ reads results and never imports run/; run/ writes them and never imports report/
  // (DESIGN.md, layers 9-11; issue 31, item 1). Today's crossings are listed as to-do: the test
  // fails on a new one, and on a listed one that is gone (so the list only shrinks).
  it('report/ and run/ do not import each other (beyond the listed to-dos)', () => {
    const crossing = (from: string, to: string): string[] =>
      importsUnder(from)
        .filter((i) => toPosix(i.target).startsWith(`${to}/`))
        .map((i) => `${toPosix(i.file)} -> ${toPosix(i.target)}`);
    const found = [...new Set([...crossing('report', 'run'), ...crossing('run', 'report')])].sort();
    expect(found).toEqual([...REPORT_RUN_TODO].sort());
  });

  // run.json's readers and its contract never import the run path that writes it, and the contract
  // imports none of its readers (DESIGN.md, layers 9-10; issue 31, items 1 and 7).
  it.each(['report', 'results'])('%s/ imports nothing from run/', (dir) => {
    const offending = importsUnder(dir).filter((i) => toPosix(i.target).startsWith('run/'));
    expect(offending).toEqual([]);
  });

  it('results/ imports nothing from report/', () => {
    expect(importsUnder('results').filter((i) => toPosix(i.target).startsWith('report/'))).toEqual([]);
  });

  it('the results/ scan sees its imports (not vacuous)', () => {
    expect(importsUnder('results').some((i) => i.target === path.join('metrics', 'histogram.js'))).toBe(true);
  });

  // No source file over 500 lines (issue 31, item 5). The files listed are over it today: the test
  // fails on a new one, and on a listed one that has come under the limit (then drop it here).
  it('no source file in src/ is over 500 lines, beyond the listed ones', () => {
    const over = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .filter((f) => readFileSync(path.join(SRC, f), 'utf8').split('\n').length - 1 > 500)
      .map(toPosix)
      .sort();
    expect(over).toEqual([...OVER_500_LINES].sort());
  });

  it('finds the imports it checks (the scan is not vacuous)', () => {
    expect(importsUnder('engine').some((i) => i.target === path.join('random', 'rng.js'))).toBe(true);
  });
});
