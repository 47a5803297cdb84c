/**
 * The README's claims that a machine can check: every command it names exists, every flag it
 * documents is accepted by that command's parser (and the flag tables' flags are in `--help`),
 * the exit codes are src/errors.ts's, and every SQL feature it names is in the dialects' SQL.
 * Tables and code blocks are parsed, not prose, so rewording the README does not break this.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { ExitCode } from '../../src/errors.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

interface Table {
  header: string[];
  rows: string[][];
  /** The `txbench COMMAND` the nearest code block above the table runs last. */
  command: string | undefined;
  /** That command's `--workload`, whose options the table may document. */
  workload: string | undefined;
}

const cells = (line: string): string[] =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((c) => c.trim());

/** Every Markdown table, with the command of the code block before it. */
function tables(markdown: string): Table[] {
  const lines = markdown.split('\n');
  const out: Table[] = [];
  let command: string | undefined;
  let workload: string | undefined;
  let inCode = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('```')) inCode = !inCode;
    if (inCode) {
      for (const m of line.matchAll(/\btxbench ([a-z]+)/g)) {
        command = m[1];
        workload = workloadIn(line);
      }
      continue;
    }
    if (!line.startsWith('|') || !/^\|[\s:|-]+\|$/.test(lines[i + 1]?.trim() ?? '')) continue;
    const table: Table = { header: cells(line), rows: [], command, workload };
    for (i += 2; i < lines.length && lines[i]!.startsWith('|'); i++) table.rows.push(cells(lines[i]!));
    out.push(table);
  }
  return out;
}

/** Each `npx txbench …` line of the shell code blocks (continuations joined, comments dropped). */
function shellCommands(
  markdown: string,
): { command: string; flags: string[]; text: string; workload: string | undefined }[] {
  const blocks = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const out: { command: string; flags: string[]; text: string; workload: string | undefined }[] = [];
  for (const block of blocks) {
    for (const text of block.replace(/\\\n/g, ' ').split('\n')) {
      const m = /^\s*npx txbench ([a-z]+)(.*)$/.exec(text.replace(/\s#.*$/, ''));
      if (m) out.push({ command: m[1]!, flags: flagsIn(m[2]!), text, workload: workloadIn(text) });
    }
  }
  return out;
}

/** The `--workload NAME` a command line names: its options are flags of the command then. */
const workloadIn = (text: string): string | undefined => /--workload[ =](\S+)/.exec(text)?.[1];

const flagsIn = (text: string): string[] => [
  ...new Set([...text.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0])),
];

const TABLES = tables(README);
const COMMAND_TABLE = TABLES.find((t) => t.header[0] === 'command');
const FLAG_TABLES = TABLES.filter((t) => t.header[0] === 'flag');

interface Outcome {
  code: number;
  out: string;
  err: string;
}

let out: string[] = [];
let err: string[] = [];

beforeEach(() => {
  out = [];
  err = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
});

afterEach(() => {
  vi.restoreAllMocks();
});

async function cli(args: string[]): Promise<Outcome> {
  out = [];
  err = [];
  const code = await main(args);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/**
 * Whether `command` accepts `flag`. With `--help` after it nothing runs: a known flag prints the
 * help (as `--flag=1` when it takes a value, bare when it is a switch); an unknown one is refused.
 */
async function accepts(command: string, flag: string, workload?: string): Promise<boolean> {
  // `--workload` takes a workload's name: a made-up value would be refused as unknown.
  if (flag === '--workload')
    return (await cli([command, '--workload', workload ?? 'tpcc', '--help'])).code === ExitCode.ok;
  const named = workload === undefined ? [] : ['--workload', workload];
  for (const form of [[`${flag}=1`], [flag]]) {
    if ((await cli([command, ...named, ...form, '--help'])).code === ExitCode.ok) return true;
  }
  return false;
}

describe('README: commands', () => {
  it('tells an accepted flag from an unknown one (switches and flags with values)', async () => {
    expect(await accepts('run', '--check')).toBe(true);
    expect(await accepts('run', '--warehouses')).toBe(true);
    expect(await accepts('load', '--replace')).toBe(true);
    expect(await accepts('run', '--no-such-flag')).toBe(false);
    expect(await accepts('drop', '--warehouses')).toBe(false);
  });

  it('has a commands table and flag tables (the parse finds what it checks)', () => {
    expect(COMMAND_TABLE?.rows.length).toBeGreaterThanOrEqual(4);
    expect(FLAG_TABLES.length).toBeGreaterThanOrEqual(1);
    expect(FLAG_TABLES.flatMap((t) => t.rows).length).toBeGreaterThanOrEqual(10);
    expect(shellCommands(README).length).toBeGreaterThanOrEqual(10);
  });

  it('every command of the commands table exists and has the flags the table gives it, in its --help', async () => {
    for (const [usage] of COMMAND_TABLE!.rows) {
      const command = /^`txbench ([a-z]+)/.exec(usage!)?.[1];
      expect(command, usage).toBeDefined();
      const help = await cli([command!, '--help']);
      expect(help.code, `txbench ${command} --help`).toBe(ExitCode.ok);
      for (const flag of flagsIn(usage!)) {
        expect(await accepts(command!, flag), `txbench ${command} ${flag}`).toBe(true);
        expect(help.out, `txbench ${command} --help names ${flag}`).toContain(flag);
      }
    }
  });

  it('every command and flag in the shell examples is accepted', async () => {
    for (const { command, flags, text, workload } of shellCommands(README)) {
      expect((await cli([command, '--help'])).code, text).toBe(ExitCode.ok);
      for (const flag of flags) expect(await accepts(command, flag, workload), `${text}: ${flag}`).toBe(true);
    }
  });
});

describe('README: flag tables', () => {
  it('every flag is accepted by the command the table documents, and is in its --help', async () => {
    for (const table of FLAG_TABLES) {
      expect(table.command).toBeDefined();
      const named = table.workload === undefined ? [] : ['--workload', table.workload];
      const help = await cli([table.command!, ...named, '--help']);
      for (const [first] of table.rows) {
        const flags = flagsIn(first!);
        expect(flags.length, first).toBeGreaterThan(0);
        for (const flag of flags) {
          expect(
            await accepts(table.command!, flag, table.workload),
            `txbench ${table.command} ${flag}`,
          ).toBe(true);
          expect(help.out, `txbench ${table.command} --help names ${flag}`).toContain(flag);
        }
      }
    }
  });
});

describe('README: exit codes', () => {
  it('lists exactly the codes of src/errors.ts', () => {
    const section = /## Exit codes\n([\s\S]*?)\n## /.exec(README)?.[1] ?? '';
    const listed = [...section.matchAll(/(?:^|·)\s*(\d+) /g)].map((m) => Number(m[1]));
    expect(listed.sort((a, b) => a - b)).toEqual(Object.values(ExitCode).sort((a, b) => a - b));
  });
});

/** The SQL of the dialects and of the workload's per-dialect folders, without comments. */
function dialectCode(): string {
  const files = ['src/dialects', 'src/workloads'].flatMap((dir) =>
    readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => path.join(ROOT, dir, f)),
  );
  return files
    .map((f) =>
      readFileSync(f, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, ''),
    )
    .join('\n');
}

/** SQL features the README may name: how it names them, and how the code spells them. */
const SQL_FEATURES: readonly { name: string; readme: RegExp; code: RegExp }[] = [
  { name: 'SKIP LOCKED', readme: /skip\s+locked/i, code: /\bskip\s+locked\b/i },
  { name: 'NOWAIT', readme: /\bnowait\b/i, code: /\bnowait\b/i },
  { name: 'READPAST', readme: /\breadpast\b/i, code: /\breadpast\b/i },
  { name: 'FOR UPDATE', readme: /\bfor\s+update\b/i, code: /\bfor\s+update\b/i },
  { name: 'UPDLOCK', readme: /\bupdlock\b/i, code: /\bupdlock\b/i },
  {
    name: 'repeatable read',
    readme: /\brepeatable\s+read\b/i,
    code: /\bisolation\s+level\s+repeatable\s+read\b/i,
  },
  {
    name: 'READ COMMITTED',
    readme: /\bread\s+committed\b/i,
    code: /\bisolation\s+level\s+read\s+committed\b/i,
  },
  {
    name: 'SERIALIZABLE',
    readme: /\bserializable\b(?! failure)/i,
    code: /\bisolation\s+level\s+serializable\b/i,
  },
  { name: 'COPY', readme: /`COPY`/, code: /\bcopy \$\{\w+\} \(.*\) from stdin/i },
  { name: 'LOAD DATA LOCAL INFILE', readme: /load data local infile/i, code: /\bload data local infile\b/i },
  { name: 'ALTER SYSTEM', readme: /alter system/i, code: /\balter system set\b/i },
  { name: 'ANALYZE', readme: /`ANALYZE`/, code: /\banalyze\b/i },
  { name: 'WAL mode', readme: /\bWAL mode\b/, code: /journal_mode\s*=\s*wal/i },
];

describe('README: SQL features', () => {
  const code = dialectCode();

  it('the scan reads the dialects’ SQL, not their comments', () => {
    expect(code).toMatch(/\bfor update\b/i);
    // src/dialects/mysql/errors.ts names SKIP LOCKED in a comment only.
    expect(code).not.toMatch(/\bskip\s+locked\b/i);
  });

  it.each(SQL_FEATURES)(
    '$name: named in the README only if the dialects use it',
    ({ name, readme, code: spelled }) => {
      if (!readme.test(README)) return;
      expect(spelled.test(code), `the README names ${name}, which no dialect uses`).toBe(true);
    },
  );

  it('names the locking and isolation the transactions use (the checks above are not vacuous)', () => {
    for (const name of ['FOR UPDATE', 'repeatable read', 'COPY']) {
      expect(SQL_FEATURES.find((f) => f.name === name)!.readme.test(README), name).toBe(true);
    }
  });
});
