import type { CheckResult } from '../workloads/workload.js';

/** PASS/FAIL per condition with its violation count. */
export function formatCheckResults(results: readonly CheckResult[]): string {
  const idWidth = Math.max(...results.map((r) => r.id.length), 2);
  const lines = results.map(
    (r) =>
      `${r.pass ? 'PASS' : 'FAIL'}  ${r.id.padEnd(idWidth)}  ${r.title}${r.pass ? '' : `  (${r.violations.toLocaleString('en-US')} violations)`}`,
  );
  const failed = results.filter((r) => !r.pass).length;
  lines.push(
    failed === 0 ? `all ${results.length} checks passed` : `${failed} of ${results.length} checks FAILED`,
  );
  return lines.join('\n');
}
