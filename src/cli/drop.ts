import { dropTpcc } from '../workloads/tpcc/loader.js';
import { parseCommand, TARGET_OPTIONS } from './args.js';
import { withTarget } from './target.js';

export const DROP_HELP = `txbench drop [--db URL | --data-dir DIR]

Removes the TPC-C tables and txbench's metadata (also after an interrupted load).`;

export async function dropCommand(argv: string[]): Promise<number> {
  const { values } = parseCommand('drop', argv, TARGET_OPTIONS);
  if (values.help) {
    console.log(DROP_HELP);
    return 0;
  }
  return withTarget(values, { create: false }, async (target) => {
    await dropTpcc(target.url);
    console.log(`dropped the TPC-C schema from ${target.spec.label}`);
    return 0;
  });
}
