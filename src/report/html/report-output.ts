/**
 * report.html as an output: drawn from a run directory once run.json is written there (the
 * `written` event), then handed to the live dashboard as its last page. The figures are on disk
 * already, so a report that cannot be drawn is a warning, not a failed run; one the file system
 * would not take (a full disk) is also named among what the command could not write (exit 1).
 */
import type { Output } from '../../results/run-events.js';
import type { Dashboard } from './dashboard.js';
import { REPORT_FILE, writeRunDirReport } from './report.js';

export function reportOutput(dashboard: Dashboard | undefined): Output {
  let unwritten: string[] = [];
  return {
    name: REPORT_FILE,
    event: async (event) => {
      if (event.kind !== 'written') return;
      try {
        const report = await writeRunDirReport(event.dir);
        await dashboard?.finish(report);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== undefined) unwritten.push(`${event.dir}/${REPORT_FILE}`);
        console.error(
          `warning: ${REPORT_FILE} not written (${err instanceof Error ? err.message : String(err)})`,
        );
      }
    },
    unwritten: () => {
      const files = unwritten;
      unwritten = [];
      return files;
    },
  };
}
