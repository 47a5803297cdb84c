/**
 * The manual's claims that a machine can check, in README.md and every page of docs/: every command
 * it names exists, every flag it shows is accepted by that command's parser (and the single-command
 * flag tables' flags are in `--help`), every flag a command's `--help` lists is documented on some
 * page, every relative link leads to a file (and heading) that exists, the exit codes are
 * src/errors.ts's, and every SQL feature it names is in the dialects' SQL. Tables, code blocks and
 * inline code are parsed, not prose, so rewording a page does not break this.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { COMMANDS, main } from '../../src/cli/main.js';
import { ExitCode } from '../../src/errors.js';
import { BUILT_IN_WORKLOADS, DEFAULT_WORKLOAD } from '../../src/workloads/registry.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

interface Page {
  /** Relative to the repository, e.g. `docs/running.md`. */
  file: string;
  text: string;
}

/** README.md and every page of docs/ (docs/plans.md included once it is there). */
const PAGES: readonly Page[] = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
].map((file) => ({ file, text: readFileSync(path.join(ROOT, file), 'utf8') }));

const README = PAGES.find((p) => p.file === 'README.md')!.text;
const ALL_TEXT = PAGES.map((p) => p.text).join('\n');

const isCommand = (name: string): boolean => Object.hasOwn(COMMANDS, name);

interface Table {
  page: string;
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
function tables(page: Page): Table[] {
  const lines = page.text.split('\n');
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
    const table: Table = { page: page.file, header: cells(line), rows: [], command, workload };
    for (i += 2; i < lines.length && lines[i]!.startsWith('|'); i++) table.rows.push(cells(lines[i]!));
    out.push(table);
  }
  return out;
}

interface Mention {
  page: string;
  command: string;
  flags: string[];
  text: string;
  workload: string | undefined;
}

/** Each `npx txbench …` line of the shell code blocks (continuations joined, comments dropped). */
function shellCommands(page: Page): Mention[] {
  const blocks = [...page.text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const out: Mention[] = [];
  for (const block of blocks) {
    for (const text of block.replace(/\\\n/g, ' ').split('\n')) {
      const m = /^\s*npx txbench ([a-z]+)(.*)$/.exec(text.replace(/\s#.*$/, ''));
      if (m)
        out.push({
          page: page.file,
          command: m[1]!,
          flags: flagsIn(m[2]!),
          text,
          workload: workloadIn(text),
        });
    }
  }
  return out;
}

/** Each inline code span that runs a command, `txbench COMMAND …` (tables' cells included). */
function inlineCommands(page: Page): Mention[] {
  const prose = page.text.replace(/^```[\s\S]*?^```/gm, '');
  return [...prose.matchAll(/`(?:npx )?txbench ([a-z]+)([^`]*)`/g)].map((m) => ({
    page: page.file,
    command: m[1]!,
    flags: flagsIn(m[2]!),
    text: m[0],
    workload: workloadIn(m[0]),
  }));
}

/** The `--workload NAME` a command line names: its options are flags of the command then. */
const workloadIn = (text: string): string | undefined => /--workload[ =]([^\s`]+)/.exec(text)?.[1];

const flagsIn = (text: string): string[] => [
  ...new Set([...text.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0])),
];

/**
 * The commands a flag table's row documents its flag for: its `commands` column when it has one
 * (`run, steps, sweep`; `every command`), else the command of the code block above the table.
 */
function rowCommands(table: Table, row: readonly string[]): string[] {
  const column = table.header.indexOf('commands');
  if (column < 0) return table.command === undefined ? [] : [table.command];
  const cell = row[column] ?? '';
  if (/^every command$/.test(cell)) return Object.keys(COMMANDS);
  return cell.split(/[\s,]+/).filter((w) => w !== '');
}

const TABLES = PAGES.flatMap(tables);
const COMMAND_TABLES = TABLES.filter((t) => t.header[0] === 'command');
const FLAG_TABLES = TABLES.filter((t) => t.header[0] === 'flag');
const SHELL = PAGES.flatMap(shellCommands);
const INLINE = PAGES.flatMap(inlineCommands);

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

/** Where a page names a command: usable only when the CLI has it. */
function checkedCommand(page: string, command: string, text: string): boolean {
  expect(isCommand(command), `${page}: ${text} names no command of the CLI`).toBe(true);
  return true;
}

describe('manual: commands', () => {
  it('reads README.md and every page of docs/', () => {
    expect(PAGES.length).toBeGreaterThanOrEqual(10);
    expect(PAGES.map((p) => p.file)).toContain('docs/README.md');
  });

  it('tells an accepted flag from an unknown one (switches and flags with values)', async () => {
    expect(await accepts('run', '--check')).toBe(true);
    expect(await accepts('run', '--warehouses')).toBe(true);
    expect(await accepts('load', '--replace')).toBe(true);
    expect(await accepts('run', '--no-such-flag')).toBe(false);
    expect(await accepts('drop', '--warehouses')).toBe(false);
  });

  it('has commands tables, flag tables, examples and inline commands (the parse finds what it checks)', () => {
    expect(COMMAND_TABLES.find((t) => t.page === 'README.md')?.rows.length).toBeGreaterThanOrEqual(10);
    expect(FLAG_TABLES.length).toBeGreaterThanOrEqual(10);
    expect(FLAG_TABLES.flatMap((t) => t.rows).length).toBeGreaterThanOrEqual(60);
    expect(SHELL.filter((c) => c.page === 'README.md').length).toBeGreaterThanOrEqual(10);
    expect(SHELL.length).toBeGreaterThanOrEqual(40);
    expect(INLINE.length).toBeGreaterThanOrEqual(20);
  });

  it('the README names every command of the CLI in its commands table', () => {
    const named = new Set(
      COMMAND_TABLES.filter((t) => t.page === 'README.md')
        .flatMap((t) => t.rows)
        .map(([usage]) => /^`txbench ([a-z]+)/.exec(usage!)?.[1]),
    );
    for (const command of Object.keys(COMMANDS)) expect(named.has(command), command).toBe(true);
  });

  it('every command of the commands tables exists and has the flags the table gives it, in its --help', async () => {
    for (const table of COMMAND_TABLES) {
      for (const [usage] of table.rows) {
        const command = /^`txbench ([a-z]+)/.exec(usage!)?.[1];
        expect(command, `${table.page}: ${usage}`).toBeDefined();
        if (!checkedCommand(table.page, command!, usage!)) continue;
        const help = await cli([command!, '--help']);
        expect(help.code, `txbench ${command} --help`).toBe(ExitCode.ok);
        for (const flag of flagsIn(usage!)) {
          expect(await accepts(command!, flag), `${table.page}: txbench ${command} ${flag}`).toBe(true);
          expect(help.out, `txbench ${command} --help names ${flag}`).toContain(flag);
        }
      }
    }
  });

  it('every command and flag in the shell examples and in inline code is accepted', async () => {
    for (const { page, command, flags, text, workload } of [...SHELL, ...INLINE]) {
      if (!checkedCommand(page, command, text)) continue;
      expect((await cli([command, '--help'])).code, `${page}: ${text}`).toBe(ExitCode.ok);
      for (const flag of flags)
        expect(await accepts(command, flag, workload), `${page}: ${text}: ${flag}`).toBe(true);
    }
  });
});

describe('manual: flag tables', () => {
  it('every flag is accepted by each command its table or row documents it for', async () => {
    for (const table of FLAG_TABLES) {
      for (const row of table.rows) {
        const flags = flagsIn(row[0]!);
        const commands = rowCommands(table, row);
        expect(flags.length, `${table.page}: ${row[0]}`).toBeGreaterThan(0);
        expect(commands.length, `${table.page}: ${row[0]}: no command above or in the row`).toBeGreaterThan(
          0,
        );
        for (const command of commands) {
          if (!checkedCommand(table.page, command, row.join(' | '))) continue;
          for (const flag of flags) {
            expect(
              await accepts(command, flag, table.workload),
              `${table.page}: txbench ${command} ${flag}`,
            ).toBe(true);
          }
        }
      }
    }
  });

  it('a table under a code block documents flags that the command’s --help names', async () => {
    for (const table of FLAG_TABLES.filter((t) => !t.header.includes('commands'))) {
      const named = table.workload === undefined ? [] : ['--workload', table.workload];
      const help = await cli([table.command!, ...named, '--help']);
      for (const [first] of table.rows) {
        for (const flag of flagsIn(first!)) {
          expect(help.out, `${table.page}: txbench ${table.command} --help names ${flag}`).toContain(flag);
        }
      }
    }
  });
});

/**
 * The flags a `--help` lists, by section: the command's own, those every command takes, and each
 * workload's options. An option line starts with two spaces and a flag; its flags are those before
 * the description (two spaces or more), as in `--db URL / --data-dir DIR [--label NAME]   the target`.
 */
function helpFlags(help: string): {
  own: string[];
  everyCommand: string[];
  workloads: Map<string, string[]>;
} {
  const own: string[] = [];
  const everyCommand: string[] = [];
  const workloads = new Map<string, string[]>();
  let section: string[] = own;
  for (const line of help.split('\n')) {
    const workload = /^Options of the (\S+) workload/.exec(line)?.[1];
    if (workload !== undefined) workloads.set(workload, (section = []));
    else if (line === 'Every command:') section = everyCommand;
    else if (/^ {2}--[a-z]/.test(line)) section.push(...flagsIn(optionHead(line)));
  }
  const unique = (flags: string[]): string[] => [...new Set(flags)];
  for (const [name, flags] of workloads) workloads.set(name, unique(flags));
  return { own: unique(own), everyCommand: unique(everyCommand), workloads };
}

/**
 * An option line's flags and their values, before its description: up to two spaces, or up to the
 * first word in lower case (`--repeat N runs the whole sequence`); values are upper case (`N`,
 * `URL`) or lists (`uniform|gaussian`).
 */
function optionHead(line: string): string {
  const words = line
    .trim()
    .split(/\s{2,}/)[0]!
    .split(' ');
  const end = words.findIndex((w) => /^[a-z]/.test(w) && !w.includes('|'));
  return words.slice(0, end < 0 ? undefined : end).join(' ');
}

/** Which flags the manual documents, for each command and for each workload. */
function documented(): { byCommand: Map<string, Set<string>>; byWorkload: Map<string, Set<string>> } {
  const byCommand = new Map<string, Set<string>>();
  const byWorkload = new Map<string, Set<string>>();
  const add = (map: Map<string, Set<string>>, key: string, flags: readonly string[]): void => {
    const set = map.get(key) ?? new Set<string>();
    for (const f of flags) set.add(f);
    map.set(key, set);
  };
  for (const table of FLAG_TABLES) {
    for (const row of table.rows) {
      const flags = flagsIn(row[0]!);
      for (const command of rowCommands(table, row)) add(byCommand, command, flags);
      add(byWorkload, table.workload ?? DEFAULT_WORKLOAD, flags);
    }
  }
  for (const table of COMMAND_TABLES) {
    for (const [usage] of table.rows) {
      const command = /^`txbench ([a-z]+)/.exec(usage!)?.[1];
      if (command !== undefined) add(byCommand, command, flagsIn(usage!));
    }
  }
  for (const mention of [...SHELL, ...INLINE]) {
    add(byCommand, mention.command, mention.flags);
    add(byWorkload, mention.workload ?? DEFAULT_WORKLOAD, mention.flags);
  }
  return { byCommand, byWorkload };
}

describe('manual: every flag of --help is documented', () => {
  const { byCommand, byWorkload } = documented();
  const anywhere = new Set([...byCommand.values()].flatMap((s) => [...s]));

  it('finds the flags of a --help (the parse is not vacuous)', async () => {
    const { own, everyCommand, workloads } = helpFlags((await cli(['run', '--help'])).out);
    expect(own).toEqual(expect.arrayContaining(['--terminals', '--db', '--data-dir', '--label', '--shard']));
    expect(everyCommand).toEqual(['--config', '--target']);
    expect(workloads.get('tpcc')).toEqual(['--warehouses', '--procedures']);
  });

  it.each(Object.keys(COMMANDS))(
    'txbench %s: each flag of its --help, on the page where it is used',
    async (command) => {
      const { own, everyCommand } = helpFlags((await cli([command, '--help'])).out);
      expect(own.length, `txbench ${command} --help lists no flag`).toBeGreaterThan(0);
      const mine = byCommand.get(command) ?? new Set<string>();
      const missing = own.filter((f) => f !== '--help' && !mine.has(f));
      expect(missing, `txbench ${command}: flags of --help that no page documents for ${command}`).toEqual(
        [],
      );
      expect(
        everyCommand.filter((f) => !anywhere.has(f)),
        'flags every command takes',
      ).toEqual([]);
    },
  );

  it('each built-in workload’s options, documented for that workload', async () => {
    const withWorkloads = [];
    for (const command of Object.keys(COMMANDS)) {
      if (helpFlags((await cli([command, '--help'])).out).workloads.size > 0) withWorkloads.push(command);
    }
    expect(withWorkloads.length).toBeGreaterThan(0);
    for (const workload of BUILT_IN_WORKLOADS) {
      for (const command of withWorkloads) {
        const help = (await cli([command, '--workload', workload, '--help'])).out;
        const options = helpFlags(help).workloads.get(workload);
        expect(options, `txbench ${command} --workload ${workload} --help`).toBeDefined();
        const mine = byWorkload.get(workload) ?? new Set<string>();
        expect(
          options!.filter((f) => !mine.has(f)),
          `the ${workload} workload's options that no page documents`,
        ).toEqual([]);
      }
    }
  });
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

const anchorsIn = (markdown: string): Set<string> =>
  new Set(
    markdown
      .replace(/^```[\s\S]*?^```/gm, '')
      .split('\n')
      .flatMap((line) => /^#{1,6} (.*)$/.exec(line)?.[1] ?? [])
      .map(anchorOf),
  );

describe('manual: links', () => {
  it('every relative link leads to a file that exists, and a #section to one of its headings', () => {
    let checked = 0;
    for (const page of PAGES) {
      const prose = page.text.replace(/^```[\s\S]*?^```/gm, '');
      for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!)) continue;
        const [file, anchor] = target!.split('#') as [string, string | undefined];
        const resolved = file === '' ? page.file : path.posix.join(path.posix.dirname(page.file), file);
        checked++;
        expect(existsSync(path.join(ROOT, resolved)), `${page.file}: link to ${target}`).toBe(true);
        if (anchor !== undefined && resolved.endsWith('.md')) {
          const text = readFileSync(path.join(ROOT, resolved), 'utf8');
          expect([...anchorsIn(text)], `${page.file}: link to ${target}`).toContain(anchor);
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(30);
  });

  it('the README links every page of docs/, and docs/README.md indexes them all', () => {
    const index = PAGES.find((p) => p.file === 'docs/README.md')!.text;
    for (const page of PAGES.filter((p) => p.file.startsWith('docs/') && p.file !== 'docs/README.md')) {
      const name = path.posix.basename(page.file);
      expect(index, `docs/README.md links ${name}`).toContain(`](${name})`);
      if (name !== 'plans.md') expect(README, `README.md links ${page.file}`).toContain(`](${page.file})`);
    }
  });

  it('the README stays a first ten minutes: under 200 lines, saying the results are not TPC-C results', () => {
    expect(README.split('\n').length).toBeLessThan(200);
    expect(README).toMatch(/derived from TPC-C\*\*\s+and is not comparable with published TPC-C results/);
  });
});

describe('manual: exit codes', () => {
  it('lists exactly the codes of src/errors.ts', () => {
    const page = PAGES.find((p) => /^## Exit codes$/m.test(p.text));
    expect(page?.file).toBe('docs/results-format.md');
    const section = /## Exit codes\n([\s\S]*?)(?:\n## |$)/.exec(page!.text)?.[1] ?? '';
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

/** SQL features the manual may name: how it names them, and how the code spells them. */
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

describe('manual: SQL features', () => {
  const code = dialectCode();

  it('the scan reads the dialects’ SQL, not their comments', () => {
    expect(code).toMatch(/\bfor update\b/i);
    // src/dialects/mysql/errors.ts names SKIP LOCKED in a comment only.
    expect(code).not.toMatch(/\bskip\s+locked\b/i);
  });

  it.each(SQL_FEATURES)(
    '$name: named in the manual only if the dialects use it',
    ({ name, readme, code: spelled }) => {
      if (!readme.test(ALL_TEXT)) return;
      expect(spelled.test(code), `the manual names ${name}, which no dialect uses`).toBe(true);
    },
  );

  it('names the locking and isolation the transactions use (the checks above are not vacuous)', () => {
    for (const name of ['FOR UPDATE', 'repeatable read', 'COPY']) {
      expect(SQL_FEATURES.find((f) => f.name === name)!.readme.test(ALL_TEXT), name).toBe(true);
    }
  });
});
