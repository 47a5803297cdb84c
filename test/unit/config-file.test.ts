/**
 * `--config FILE`: the shipped schema is the one the flag tables generate, every flag of every
 * command is in it, a file's options become the command's flags (flags on the command line win),
 * and bad files are one line per problem with exit 2, never echoing a password.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv } from 'ajv';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { COMMAND_FLAGS } from '../../src/cli/commands.js';
import { withConfigFile } from '../../src/cli/config-intake.js';
import { COMMANDS, main } from '../../src/cli/main.js';
import { configSchemaText } from '../../src/cli/write-config-schema.js';
import { CONFIG_SCHEMA_FILE } from '../../src/config/config-file.js';
import { ExitCode } from '../../src/errors.js';
import { BUILT_IN_WORKLOADS, findWorkload } from '../../src/workloads/registry.js';

const shipped = JSON.parse(readFileSync(CONFIG_SCHEMA_FILE, 'utf8')) as {
  $id: string;
  properties: Record<string, { properties?: Record<string, unknown> }>;
};

const dir = mkdtempSync(path.join(tmpdir(), 'txbench-config-'));
let n = 0;
function file(text: string, ext = 'yaml'): string {
  const f = path.join(dir, `c${++n}.${ext}`);
  writeFileSync(f, text);
  return f;
}

describe('schema/txbench-config.schema.json', () => {
  it('is what the flag tables generate (run `npm run config-schema` after changing a flag)', async () => {
    expect(shipped).toEqual(JSON.parse(await configSchemaText()));
  });

  it('compiles in strict mode, with a $id and a description on every option', () => {
    const ajv = new Ajv({ strict: true, strictTypes: false, allowUnionTypes: true });
    ajv.addKeyword({ keyword: 'errorMessage', schemaType: 'string' });
    expect(() => ajv.compile(shipped)).not.toThrow();
    expect(shipped.$id).toMatch(/^https:\/\/.*txbench-config\.schema\.json$/);
    for (const [name, s] of Object.entries(shipped.properties.run!.properties!)) {
      expect((s as { description?: string }).description, name).toBeTruthy();
    }
  });

  it('has a section for every command, with every flag it takes and its workloads’ options', async () => {
    for (const command of Object.keys(COMMANDS)) expect(COMMAND_FLAGS[command], command).toBeDefined();
    const workloadOptions = (await Promise.all(BUILT_IN_WORKLOADS.map((w) => findWorkload(w)))).flatMap((w) =>
      w.options.map((o) => o.name),
    );
    expect(workloadOptions).toContain('warehouses');
    for (const [command, spec] of Object.entries(COMMAND_FLAGS)) {
      const section = Object.keys(shipped.properties[command]?.properties ?? {});
      const flags = Object.keys(spec.flags).filter(
        (f) => !['db', 'data-dir', 'label', 'node-exporter', 'device', 'help'].includes(f),
      );
      expect(flags.length + (spec.workload === 'none' ? 0 : 1), command).toBeGreaterThan(0);
      for (const flag of flags) expect(section, `${command} --${flag}`).toContain(flag);
      if (spec.workload !== 'none') expect(section, command).toContain('workload');
      if (spec.workload === 'options') for (const o of workloadOptions) expect(section, command).toContain(o);
    }
  });
});

describe('--config: the file as flags', () => {
  const env = { PGPASSWORD_VM1: 's@cret/1', JOB_COMPLETION_INDEX: '3', TERMINALS: '40' };
  const study = file(`# yaml-language-server: $schema=../schema/txbench-config.schema.json
think-scale: 0.25
warmup: 5m
warehouses: 10
tables: 4
no-monitor: false
targets:
  - label: vm1
    url: postgres://bench@vm1:5432/tpcc
    passwordEnv: PGPASSWORD_VM1
    nodeExporter: http://vm1:9100
    device: nvme0n1
  - label: vm2
    kind: mysql
    host: vm2
    user: bench
    database: tpcc
    passwordFile: ${path.join(dir, 'secret')}
run:
  terminals: \${TERMINALS}
  warmup: 1m
  check: true
  shard:
    index: \${JOB_COMPLETION_INDEX}
    base: 0
    count: 8
steps:
  users: [1, 20, 50]
load:
  jobs: 2
results:
  tag: [baseline, nvme]
  json: true
`);
  writeFileSync(path.join(dir, 'secret'), 'pw2\n');

  it('top-level options for the commands that take them, the section over them, targets with passwords', async () => {
    const argv = await withConfigFile('run', ['--config', study, '--duration', '5s'], env);
    expect(argv).toEqual([
      '--think-scale=0.25',
      '--warmup=1m',
      '--warehouses=10',
      '--terminals=40',
      '--check',
      '--shard=4/8',
      '--db=postgres://bench:s%40cret%2F1@vm1:5432/tpcc',
      '--label=vm1',
      '--node-exporter=http://vm1:9100',
      '--device=nvme0n1',
      '--db=mysql://bench:pw2@vm2:3306/tpcc',
      '--label=vm2',
      '--duration',
      '5s',
    ]);
  });

  it('a flag on the command line wins; its targets replace the file’s', async () => {
    const argv = await withConfigFile('run', ['--config=' + study, '-t', '7', '--db', 'sqlite:x.db'], env);
    expect(argv.filter((a) => a.startsWith('--terminals') || a.startsWith('--db'))).toEqual(['--db']);
    expect(argv.slice(-4)).toEqual(['-t', '7', '--db', 'sqlite:x.db']);
    expect(argv.join(' ')).not.toContain('vm1');
  });

  it('lists become repeated or comma-joined flags; another workload’s options are left out', async () => {
    expect(await withConfigFile('steps', ['--config', study, '--target', 'vm1'], env)).toEqual(
      expect.arrayContaining(['--users=1,20,50', '--warmup=5m']),
    );
    expect(await withConfigFile('results', ['--config', study], env)).toEqual([
      '--tag=baseline',
      '--tag=nvme',
      '--json',
    ]);
    const sysbench = await withConfigFile(
      'load',
      ['--config', study, '--workload', 'sysbench', '--target', 'vm1'],
      env,
    );
    expect(sysbench).toContain('--tables=4');
    expect(sysbench).not.toContain('--warehouses=10');
    expect(sysbench).toContain('--jobs=2');
  });

  it('a command that takes one target needs --target when the file lists several', async () => {
    await expect(withConfigFile('load', ['--config', study], env)).rejects.toThrow(
      /--target LABEL \(vm1, vm2\)/,
    );
    const argv = await withConfigFile('check', ['--config', study, '--target', 'vm2'], env);
    expect(argv.filter((a) => a.startsWith('--db'))).toEqual(['--db=mysql://bench:pw2@vm2:3306/tpcc']);
    await expect(withConfigFile('check', ['--config', study, '--target', 'vm9'], env)).rejects.toThrow(
      /"vm9" is not a label/,
    );
  });

  it('${NAME} inside a value and $${ for a literal', async () => {
    const f = file(
      'run:\n  out: /results/${STUDY}/shard-${JOB_COMPLETION_INDEX}\n  json: $${literal}.json\n',
    );
    expect(await withConfigFile('run', ['--config', f], { STUDY: 's1', JOB_COMPLETION_INDEX: '0' })).toEqual([
      '--out=/results/s1/shard-0',
      '--json=${literal}.json',
    ]);
  });

  it('--help shows the help without reading the file', async () => {
    expect(await withConfigFile('run', ['--config', 'no-such-file.yaml', '--help'], env)).toEqual(['--help']);
  });
});

describe('--config: bad files, one line each, exit 2', () => {
  let err: string[] = [];
  beforeEach(() => {
    err = [];
    vi.spyOn(console, 'log').mockImplementation(() => undefined);
    vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
    delete process.env.TXBENCH_TEST_UNSET;
  });
  afterEach(() => vi.restoreAllMocks());

  async function problems(command: string, text: string, ext = 'yaml'): Promise<string[]> {
    const f = file(text, ext);
    err = [];
    expect(await main([command, '--config', f])).toBe(ExitCode.usage);
    const prefix = `txbench ${command}: config ${f}: `;
    for (const line of err) expect(line.startsWith(prefix), line).toBe(true);
    return err.map((l) => l.slice(prefix.length));
  }

  it('reports every problem together: unknown keys, wrong types, inline and unset passwords', async () => {
    const lines = await problems(
      'run',
      `termnals: 4
think-scale: fast
targets:
  - label: a
    url: postgres://u:hunter2@db1/tpcc
  - label: b
    host: db2
    password: hunter3
  - label: c
    url: postgres://u@db3/tpcc
    passwordEnv: TXBENCH_TEST_UNSET
run:
  terminals: 0
  warmup: soon
`,
    );
    expect(lines.sort()).toEqual(
      [
        'termnals: unknown key: not an option of any txbench command; keys are long flag names such as think-scale',
        'think-scale: must be a number >= 0 (1 = spec, 0 = none)',
        'targets[0].url: has a password in it, which is refused; take it out and name passwordEnv or passwordFile',
        'targets[1].password: an inline password is refused; name an environment variable (passwordEnv) or a file (passwordFile)',
        'targets[2].passwordEnv: TXBENCH_TEST_UNSET is not set in the environment',
        'run.terminals: must be a whole number from 1 to 10000000',
        'run.warmup: must be a duration such as 30s, 5m, 2h or 1h30m (a bare number is seconds), or auto / auto:MAX to end on steady state',
      ].sort(),
    );
    expect(err.join('\n')).not.toMatch(/hunter/);
  });

  it('an option that goes in a section only, at the top level', async () => {
    expect(await problems('run', 'out: results\n')).toEqual([
      "out: goes in a command's section (run:, report:, …), not at the top level: it means different things to different commands",
    ]);
  });

  it('a key of another command in a section, and an unset ${NAME}', async () => {
    expect(await problems('run', 'load:\n  terminals: 3\nrun:\n  duration: ${TXBENCH_TEST_UNSET}\n')).toEqual(
      [
        'run.duration: ${TXBENCH_TEST_UNSET} is not set in the environment; set it or write the value',
        'load.terminals: unknown key: not an option of txbench load; keys are long flag names such as think-scale',
      ],
    );
  });

  it('a YAML syntax error names its line; JSON is read too', async () => {
    expect(await problems('load', 'jobs: 2\nrun:\n  terminals: [1,\n')).toEqual([
      expect.stringMatching(/^line 4, column \d+: .* \(YAML or JSON syntax\)$/),
    ]);
    expect(await problems('run', '{"run": {"terminals": "many"}}', 'json')).toEqual([
      'run.terminals: must be a whole number from 1 to 10000000',
    ]);
  });

  it('every command’s --help names --config and --target', async () => {
    const out: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
    for (const command of Object.keys(COMMANDS)) {
      out.length = 0;
      expect(await main([command, '--help']), command).toBe(ExitCode.ok);
      expect(out.join('\n'), command).toMatch(/--config FILE[\s\S]*--target LABEL/);
    }
  });

  it('a missing file, and a file that is not a mapping', async () => {
    expect(await main(['compare', '--config', path.join(dir, 'missing.yaml')])).toBe(ExitCode.usage);
    expect(err).toEqual([expect.stringMatching(/config .*missing\.yaml: cannot read it \(ENOENT\)/)]);
    err = [];
    expect(await problems('report', '- terminals: 3\n')).toEqual([
      'must be a mapping of option names to values, e.g. `terminals: 10`',
    ]);
  });

  it('a target with two addresses or none, an unreadable passwordFile, a password for SQLite', async () => {
    const lines = await problems(
      'run',
      `targets:
  - label: a
    url: postgres://u@db1/tpcc
    host: db1
  - label: b
    port: 5432
  - label: c
    url: postgres://u@db3/tpcc
    passwordFile: ${path.join(dir, 'no-such-secret')}
  - label: d
    url: sqlite:bench.db
    passwordFile: ${path.join(dir, 'secret')}
  - label: a
    dataDir: /tmp/pg
`,
    );
    expect(lines).toEqual([
      'targets[0]: give one of url, host, not several',
      'targets[1]: needs a url, a host or a dataDir',
      `targets[2].passwordFile: cannot read ${path.join(dir, 'no-such-secret')} (ENOENT)`,
      'targets[3]: a sqlite: target takes no password; drop passwordEnv/passwordFile',
      'targets[4].label: "a" is used twice',
    ]);
  });

  it('a shard index outside its count', async () => {
    expect(await problems('run', 'run:\n  shard:\n    index: 8\n    base: 0\n    count: 8\n')).toEqual([
      'run.shard.index: 8 is outside 0..7 (base 0, count 8)',
    ]);
  });
});
