import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');

/** Classes whose objects a module may keep at its top level: values nobody changes. */
const VALUE_CLASSES: ReadonlySet<string> = new Set(['URL']);

/**
 * Module-level mutable state (issue 31, item 4) in one module's text: a top-level `let`/`var`; a
 * top-level Map, Set, WeakMap or WeakSet not typed read-only; a top-level array not typed
 * read-only; a top-level object of any other class (its fields are state); a top-level object or
 * array literal that the module changes (`x.n += 1`, `x[k] = v`); a handler on `process` installed
 * when the module loads; and a process-wide `unhandledRejection` handler. State belongs to an
 * object its caller owns.
 */
function stateIn(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/^(?:export )?(?:let|var) (\w+)/gm)) found.push(m[1]!);
  for (const m of text.matchAll(
    /^(?:export )?const (\w+)(: [^=]+)? = new ((?:Weak)?(?:Map|Set)\b|[\w.]+)/gm,
  )) {
    const collection = /^(?:Weak)?(?:Map|Set)$/.test(m[3]!);
    if (collection ? !/^: Readonly/.test(m[2] ?? '') : !VALUE_CLASSES.has(m[3]!)) found.push(m[1]!);
  }
  for (const m of text.matchAll(/^(?:export )?const (\w+)(: [^=]+)? = \[/gm))
    if (
      !/readonly |^: Readonly/.test(m[2] ?? '') &&
      !/\] as const$/.test(text.slice(m.index).split(/;\s*\n/)[0]!)
    )
      found.push(m[1]!);
  for (const m of text.matchAll(/^(?:export )?const (\w+)(?:: [^=]+)? = [{[]/gm)) {
    const member = String.raw`\b${m[1]}(?:\.\w+|\[[^\]\n]*\])+`;
    const changed = new RegExp(
      String.raw`${member}\s*(?:[-+*/%|&^]|\*\*|<<|>>>?|\?\?|\|\||&&)?=(?!=)|${member}\s*(?:\+\+|--)|(?:\+\+|--)${member}`,
    );
    if (changed.test(text) && !found.includes(m[1]!)) found.push(m[1]!);
  }
  for (const m of text.matchAll(/^process\.(?:on|once|addListener|prependListener)\(\s*'(\w+)'/gm))
    found.push(`${m[1]} handler on load`);
  if (/process\.on\(\s*'unhandledRejection'/.test(text)) found.push('unhandledRejection handler');
  return found;
}

function moduleState(): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(SRC, { recursive: true, encoding: 'utf8' })) {
    if (!entry.endsWith('.ts')) continue;
    const file = entry.split(path.sep).join('/');
    for (const name of stateIn(readFileSync(path.join(SRC, entry), 'utf8'))) found.push(`${file}: ${name}`);
  }
  return found.sort();
}

describe('module-level mutable state', () => {
  it('none in src/: state belongs to an object its caller owns', () => {
    expect(moduleState()).toEqual([]);
  });

  it('the scan finds each kind of state it looks for, and passes what is not state (not vacuous)', () => {
    const text = [
      'let count = 0;',
      'export var legacy = 1;',
      'const memo = new WeakMap<object, string>();',
      'export const byName: Map<string, number> = new Map();',
      'const pending: string[] = [];',
      'const registry = new Registry();',
      'const unsent = { rows: 0, at: performance.now() };',
      'function progress(n: number): void {',
      '  unsent.rows += n;',
      '}',
      'const slots = [0, 0];',
      'slots[1]++;',
      "process.on('exit', () => undefined);",
      'function install(): void {',
      "  process.on('unhandledRejection', () => undefined);",
      '}',
      // Not state: read-only collections, constants, values, and names inside a function.
      'const NAMES: ReadonlySet<string> = new Set([]);',
      'const LIMITS: readonly number[] = [1, 2];',
      "const KINDS = ['a', 'b'] as const;",
      "const FILE = new URL('../x.json', import.meta.url);",
      'const SETTINGS = { max: 1 };',
      'const copy = SETTINGS.max === 1;',
      'function owned(): void {',
      '  let local = 0;',
      '  const cache = new Map<string, number>();',
      '}',
    ].join('\n');
    expect(stateIn(text).sort()).toEqual(
      [
        'count',
        'legacy',
        'memo',
        'byName',
        'pending',
        'registry',
        'unsent',
        'slots',
        'exit handler on load',
        'unhandledRejection handler',
      ].sort(),
    );
  });
});
