import { createRequire } from 'node:module';

/** txbench's version, from package.json (two folders up from src/util/ and from dist/util/). */
export function toolVersion(): string {
  return (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
}
