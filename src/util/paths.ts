import { realpath } from 'node:fs/promises';

/**
 * The path with its symlinks followed (pg_wal is often a link to another disk), or the path as
 * given when it cannot be resolved here: a server on another machine reports its own paths.
 */
export async function realpathOrAsGiven(p: string): Promise<string> {
  return realpath(p).catch(() => p);
}
