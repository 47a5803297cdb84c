import { dropWorkload } from '../api.js';
import { TARGET_OPTIONS } from './args.js';
import { withTarget } from './target.js';
import { parseWithWorkload, WORKLOAD_HELP } from './workload-flags.js';

export const DROP_HELP = `txbench drop [--workload NAME] [--db URL | --data-dir DIR]

Removes the workload's tables (TPC-C, the default: its nine) and txbench's record of the load
(also after an interrupted load).
${WORKLOAD_HELP}`;

export async function dropCommand(argv: string[]): Promise<number> {
  const { values, workload } = await parseWithWorkload('drop', argv, TARGET_OPTIONS, false);
  if (values.help) {
    console.log(DROP_HELP);
    return 0;
  }
  return withTarget(values, { create: false }, async (target) => {
    await dropWorkload(workload, target.url, {});
    console.log(`dropped the ${workload.name} schema from ${target.spec.label}`);
    return 0;
  });
}
