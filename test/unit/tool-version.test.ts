import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolVersion } from '../../src/util/tool-version.js';
import { BYTES_PER_MB, bytesToMB } from '../../src/util/units.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(ROOT, 'src');

/** The src/ files that read package.json themselves instead of asking util/tool-version.ts. */
function ownVersionReaders(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.split(path.sep).join('/'))
    .filter(
      (f) =>
        f !== 'util/tool-version.ts' && readFileSync(path.join(SRC, f), 'utf8').includes("package.json')"),
    )
    .sort();
}

describe('one toolVersion()', () => {
  it("is package.json's version", () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(toolVersion()).toBe(pkg.version);
  });

  it('no other module reads package.json for it', () => {
    expect(ownVersionReaders()).toEqual([]);
  });
});

describe('one bytes-per-MB', () => {
  it('MB are SI megabytes', () => {
    expect(BYTES_PER_MB).toBe(1_000_000);
    expect(bytesToMB(2_500_000)).toBe(2.5);
  });

  it('only util/units.ts defines it', () => {
    const defining = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && /BYTES_PER_MB\s*=/.test(readFileSync(path.join(SRC, f), 'utf8')))
      .map((f) => f.split(path.sep).join('/'))
      .sort();
    expect(defining).toEqual(['util/units.ts']);
  });
});
