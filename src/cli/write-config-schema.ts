/**
 * Writes schema/txbench-config.schema.json from the flag tables and the built-in workloads
 * (`npm run config-schema`); test/unit/config-schema.test.ts fails while the file is out of date.
 */
import { writeFileSync } from 'node:fs';
import { CONFIG_SCHEMA_FILE } from '../config/config-file.js';
import { BUILT_IN_WORKLOADS, findWorkload } from '../api.js';
import { buildConfigSchema } from './config-schema.js';

export async function configSchemaText(): Promise<string> {
  const workloads = await Promise.all(BUILT_IN_WORKLOADS.map((name) => findWorkload(name)));
  return `${JSON.stringify(buildConfigSchema(workloads), null, 2)}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(CONFIG_SCHEMA_FILE, await configSchemaText());
  console.log(`wrote ${CONFIG_SCHEMA_FILE.pathname}`);
}
