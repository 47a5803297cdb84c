/** What the bench prints (one table per section, then the summary of targets) and bench.json. */
import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { ENV_KEYS, type BenchConfig } from './config.js';
import type { Contention } from './contention.js';
import { summaryTable } from './figures.js';
import type { Machine } from './machine.js';
import type { SectionRecord } from './sections.js';
import { toolVersion } from '../util/tool-version.js';

export function renderReport(records: readonly SectionRecord[], loadNote: string): string {
  const summary = records.flatMap((r) => r.targets);
  const out: string[] = [];
  for (const r of records) {
    if (r.status === 'skipped') continue;
    out.push(`## ${r.id}. ${r.title} (${r.seconds} s)`, '');
    out.push(r.status === 'ok' ? (r.table ?? '') : `FAILED: ${r.error}`, '');
  }
  out.push('## Summary', '', summaryTable(summary), '');
  const missed = summary.filter((r) => !r.pass);
  out.push(
    missed.length === 0
      ? `All ${summary.length} targets met.`
      : `${summary.length - missed.length} of ${summary.length} targets met; missed: ${missed.map((r) => r.figure).join('; ')}.`,
  );
  const outOfReach = missed.filter((r) => r.outOfReach !== undefined);
  if (outOfReach.length > 0)
    out.push(
      '',
      `Out of this machine's reach, as measured: ${outOfReach.map((r) => `${r.figure} (${r.outOfReach})`).join('; ')}.`,
    );
  if (loadNote) out.push('', loadNote);
  return out.join('\n');
}

export async function writeReport(
  cfg: BenchConfig,
  records: readonly SectionRecord[],
  context: {
    machine: Machine;
    postgres: { version: string; settings: Readonly<Record<string, string>> } | undefined;
    contention: Contention;
    startedAt: number;
  },
): Promise<void> {
  const env = Object.fromEntries(
    ENV_KEYS.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]]),
  );
  const report = {
    schemaVersion: 1,
    tool: { name: 'txbench bench', version: toolVersion() },
    date: new Date().toISOString(),
    command: [...Object.entries(env).map(([k, v]) => `${k}=${v}`), 'npm run bench'].join(' '),
    env,
    machine: { ...context.machine, loadAverageAtEnd: Math.round((loadavg()[0] ?? 0) * 100) / 100 },
    postgres: context.postgres,
    config: { ...cfg, sections: [...cfg.sections] },
    durationS: Math.round((performance.now() - context.startedAt) / 1000),
    sections: Object.fromEntries(
      records.map((r) => [
        r.key,
        { id: r.id, title: r.title, status: r.status, error: r.error, seconds: r.seconds, data: r.data },
      ]),
    ),
    summary: records.flatMap((r) => r.targets),
    contention: context.contention,
  };
  await writeFile(cfg.out, JSON.stringify(report, null, 2) + '\n');
}
