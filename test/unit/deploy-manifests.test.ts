/**
 * deploy/kubernetes: every manifest (and the ConfigMaps kustomize generates) is a valid
 * Kubernetes object by the API's OpenAPI schema (kubernetes-models' validators, offline: no
 * cluster or kubectl here), and the pieces fit: the Job runs as many shards as the config file
 * says, the config is mounted where --config reads it, every password comes from a Secret key
 * that exists, and every shard gets its own --shard I/N, the same --start-at and its own output.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { withConfigFile } from '../../src/cli/config-intake.js';
import { readConfigFile } from '../../src/config/config-file.js';

const DIR = path.resolve(import.meta.dirname, '../../deploy/kubernetes');
const CONFIG = path.join(DIR, 'txbench.yaml');

type Obj = Record<string, unknown>;
interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  [key: string]: unknown;
}

const kustomization = parseYaml(readFileSync(path.join(DIR, 'kustomization.yaml'), 'utf8')) as {
  resources: string[];
  configMapGenerator: { name: string; files?: string[]; envs?: string[] }[];
  generatorOptions?: { disableNameSuffixHash?: boolean };
  images?: { name: string; newTag?: string }[];
};

function manifestsIn(file: string): Manifest[] {
  return parseAllDocuments(readFileSync(path.join(DIR, file), 'utf8')).map((doc) => {
    expect(doc.errors, file).toEqual([]);
    return doc.toJS() as Manifest;
  });
}

/** The ConfigMaps kustomize makes from configMapGenerator: a key per file, or per line of an env file. */
function generatedConfigMaps(): Manifest[] {
  return kustomization.configMapGenerator.map((g) => {
    const data: Record<string, string> = {};
    for (const f of g.files ?? []) data[path.basename(f)] = readFileSync(path.join(DIR, f), 'utf8');
    for (const f of g.envs ?? []) {
      for (const line of readFileSync(path.join(DIR, f), 'utf8').split('\n')) {
        const m = /^([A-Za-z_][\w.-]*)=(.*)$/.exec(line.trim());
        if (m) data[m[1]!] = m[2]!;
      }
    }
    return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: g.name }, data };
  });
}

const MANIFESTS = [...kustomization.resources.flatMap(manifestsIn), ...generatedConfigMaps()];
const named = (kind: string, name: string): Manifest => {
  const found = MANIFESTS.find((m) => m.kind === kind && m.metadata.name === name);
  expect(found, `${kind} ${name}`).toBeDefined();
  return found!;
};

/** kubernetes-models' class for an object (its folders follow apiVersion: v1/, batch/v1/). */
async function model(apiVersion: string, kind: string): Promise<new (data: unknown) => { validate(): void }> {
  const mod = (await import(`kubernetes-models/${apiVersion}/${kind}`)) as Record<
    string,
    new (data: unknown) => { validate(): void }
  >;
  return mod[kind]!;
}

interface Container {
  name: string;
  image: string;
  args?: string[];
  command?: string[];
  env?: {
    name: string;
    value?: string;
    valueFrom?: {
      secretKeyRef?: { name: string; key: string };
      configMapKeyRef?: { name: string; key: string };
      fieldRef?: { fieldPath: string };
    };
  }[];
  volumeMounts?: { name: string; mountPath: string }[];
  securityContext?: Obj;
}
interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  volumes: { name: string; configMap?: { name: string }; persistentVolumeClaim?: { claimName: string } }[];
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
}
interface JobSpec {
  completionMode?: string;
  completions: number;
  parallelism: number;
  template: { spec: PodSpec };
}
const jobSpec = (name: string): JobSpec => named('Job', name).spec as JobSpec;

describe('deploy/kubernetes: the manifests', () => {
  it('kustomization lists every manifest file, and the files it generates from exist', () => {
    const files = readdirSync(DIR).filter(
      (f) => f.endsWith('.yaml') && f !== 'kustomization.yaml' && f !== 'txbench.yaml',
    );
    expect([...kustomization.resources].sort()).toEqual(files.sort());
    expect(kustomization.generatorOptions?.disableNameSuffixHash).toBe(true);
    expect(MANIFESTS.map((m) => m.kind).sort()).toEqual(
      ['ConfigMap', 'ConfigMap', 'Job', 'Job', 'PersistentVolumeClaim', 'Secret'].sort(),
    );
  });

  it('every object is valid by the Kubernetes API schema', async () => {
    for (const m of MANIFESTS) {
      const Model = await model(m.apiVersion, m.kind);
      expect(() => new Model(m).validate(), `${m.kind} ${m.metadata.name}`).not.toThrow();
    }
  });

  it('no object has a field the API does not know (as kubectl --validate=strict): checked by the models’ types', () => {
    expect(unknownFieldErrors(MANIFESTS)).toEqual([]);
    // TypeScript names one unknown field per object: a typo in the Job's spec, one in its container.
    const job = (): Manifest & { spec: JobSpec & Obj } =>
      structuredClone(named('Job', 'txbench-shards')) as Manifest & { spec: JobSpec & Obj };
    const inSpec = job();
    inSpec.spec.paralelism = 8;
    const inContainer = job();
    (inContainer.spec.template.spec.containers[0] as Container & Obj).imagePolicy = 'Always';
    expect(unknownFieldErrors([inSpec, inContainer]).sort()).toEqual([
      expect.stringMatching(/"imagePolicy".* does not exist in type 'IContainer'/),
      expect.stringMatching(/"paralelism".* does not exist in type 'IJobSpec'/),
    ]);
  });

  it('the validator refuses a broken Job (the check above can fail)', async () => {
    const Job = await model('batch/v1', 'Job');
    const job = structuredClone(named('Job', 'txbench-shards')) as Manifest & { spec: Obj };
    job.spec.parallelism = 'eight';
    expect(() => new Job(job).validate()).toThrow();
    const noContainers = structuredClone(named('Job', 'txbench-shards')) as Manifest & { spec: JobSpec };
    delete (noContainers.spec.template.spec as Partial<PodSpec>).containers;
    expect(() => new Job(noContainers).validate()).toThrow();
  });

  it('the load is an Indexed Job with parallelism = completions = the config file’s shard count', () => {
    const spec = jobSpec('txbench-shards');
    const config = readConfigFile(CONFIG, podEnv(0));
    const shard = config.sections.run!.shard as { count: number; base: number };
    expect(spec.completionMode).toBe('Indexed');
    expect(spec.parallelism).toBe(shard.count);
    expect(spec.completions).toBe(shard.count);
    expect(shard.base).toBe(0); // JOB_COMPLETION_INDEX counts from 0
    const merge = jobSpec('txbench-merge').template.spec.initContainers![0]!;
    expect(merge.env!.find((e) => e.name === 'SHARDS')?.value).toBe(String(shard.count));
  });

  it('every Secret, ConfigMap key and volume a pod refers to exists; the config is where --config reads it', () => {
    type Secret = Manifest & { stringData: Record<string, string> };
    const config = readConfigFile(CONFIG, podEnv(0));
    const passwordEnvs = (
      parseYaml(readFileSync(CONFIG, 'utf8')) as { targets: { passwordEnv: string }[] }
    ).targets.map((t) => t.passwordEnv);
    expect(config.targets).toHaveLength(4);
    for (const jobName of ['txbench-shards', 'txbench-merge']) {
      const pod = jobSpec(jobName).template.spec;
      for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
        expect(c.image, c.name).toBe(kustomization.images![0]!.name);
        for (const e of c.env ?? []) {
          const s = e.valueFrom?.secretKeyRef;
          if (s) expect(Object.keys((named('Secret', s.name) as Secret).stringData), e.name).toContain(s.key);
          const k = e.valueFrom?.configMapKeyRef;
          if (k) expect(Object.keys(named('ConfigMap', k.name).data as Obj), e.name).toContain(k.key);
        }
        for (const mount of c.volumeMounts ?? []) {
          const volume = pod.volumes.find((v) => v.name === mount.name);
          expect(volume, `${c.name}: volume ${mount.name}`).toBeDefined();
          if (volume!.persistentVolumeClaim) {
            const pvc = named('PersistentVolumeClaim', volume!.persistentVolumeClaim.claimName);
            expect((pvc.spec as { accessModes: string[] }).accessModes).toContain('ReadWriteMany');
          }
        }
        // --config FILE: FILE is a key of a ConfigMap mounted at its directory.
        const words = [...(c.command ?? []), ...(c.args ?? [])].join(' ');
        const configPath = /--config[ =](\S+)/.exec(words)?.[1];
        if (configPath === undefined) continue;
        const mount = c.volumeMounts!.find((m) => m.mountPath === path.posix.dirname(configPath));
        const volume = pod.volumes.find((v) => v.name === mount?.name);
        expect(volume?.configMap, `${c.name}: ${configPath} is on a ConfigMap`).toBeDefined();
        expect(Object.keys(named('ConfigMap', volume!.configMap!.name).data as Obj)).toContain(
          path.posix.basename(configPath),
        );
      }
    }
    const shardEnv = jobSpec('txbench-shards').template.spec.containers[0]!.env!.map((e) => e.name);
    for (const name of passwordEnvs) expect(shardEnv, name).toContain(name);
    expect(shardEnv).toEqual(expect.arrayContaining(['JOB_COMPLETION_INDEX', 'TXBENCH_START_AT']));
  });

  it('each pod runs its own shard 1..8 of every target, with one start time and its own output', async () => {
    const runs = await Promise.all(
      [0, 1, 2, 3, 4, 5, 6, 7].map((i) => withConfigFile('run', ['--config', CONFIG], podEnv(i))),
    );
    const flag = (argv: string[], name: string): string[] =>
      argv.filter((a) => a.startsWith(`--${name}=`)).map((a) => a.slice(name.length + 3));
    expect(runs.map((a) => flag(a, 'shard')[0])).toEqual([
      '1/8',
      '2/8',
      '3/8',
      '4/8',
      '5/8',
      '6/8',
      '7/8',
      '8/8',
    ]);
    expect(new Set(runs.map((a) => flag(a, 'start-at')[0]))).toEqual(new Set(['2026-12-02T09:00:00Z']));
    expect(new Set(runs.map((a) => flag(a, 'out')[0])).size).toBe(8);
    expect(runs[0]!.filter((a) => a.startsWith('--db='))).toHaveLength(4);
    expect(flag(runs[0]!, 'label')).toEqual(['vm1', 'vm2', 'vm3', 'vm4']);
    // The merge reads the shards where they wrote and writes where the report reads.
    const config = readConfigFile(CONFIG, podEnv(0));
    const mergeCommand = jobSpec('txbench-merge').template.spec.containers[0]!.command!.join(' ');
    expect(config.sections.merge!.out).toBe('/results/study-2026-12-02T09:00:00Z/merged');
    expect(mergeCommand).toContain('"$STUDY"/shard-*/');
    expect(mergeCommand).toContain('"$STUDY/merged"');
    expect(flag(runs[3]!, 'out')[0]).toBe('/results/study-2026-12-02T09:00:00Z/shard-3');
  });

  it('pods run as a non-root user without privilege escalation', () => {
    for (const jobName of ['txbench-shards', 'txbench-merge']) {
      const pod = jobSpec(jobName).template.spec;
      expect(pod.securityContext?.runAsNonRoot, jobName).toBe(true);
      expect(pod.securityContext?.runAsUser, jobName).not.toBe(0);
      for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
        expect(c.securityContext?.allowPrivilegeEscalation, c.name).toBe(false);
      }
    }
  });
});

/**
 * Unknown fields: the OpenAPI validators accept them (the API's schema does not forbid them), the
 * API server's strict field validation does not. kubernetes-models' TypeScript interfaces list
 * every field, so each object is type-checked as an object literal of its kind's interface, where
 * TypeScript reports any field the interface lacks.
 */
function unknownFieldErrors(objects: readonly Manifest[]): string[] {
  const file = path.join(import.meta.dirname, '__k8s_manifests__.ts');
  const kinds = [...new Set(objects.map((o) => `${o.apiVersion}/${o.kind}`))];
  const source = [
    ...kinds.map((k) => `import type { I${path.posix.basename(k)} } from 'kubernetes-models/${k}';`),
    ...objects.map((o, i) => `export const o${i}: I${o.kind} = ${JSON.stringify(o)};`),
  ].join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version) =>
    name === file ? ts.createSourceFile(name, source, version) : getSourceFile(name, version);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, ' '))
    .map((text) => text.replace(/^Object literal may only specify known properties, and /, ''));
}

/** The environment a shard pod has: its completion index, the start time, the Secret's passwords. */
function podEnv(index: number): NodeJS.ProcessEnv {
  const start = /^TXBENCH_START_AT=(.*)$/m.exec(readFileSync(path.join(DIR, 'start.env'), 'utf8'))![1]!;
  return {
    JOB_COMPLETION_INDEX: String(index),
    TXBENCH_START_AT: start,
    PGPASSWORD_VM1: 'pw1',
    PGPASSWORD_VM2: 'pw2',
    PGPASSWORD_VM3: 'pw3',
    PGPASSWORD_VM4: 'pw4',
  };
}
