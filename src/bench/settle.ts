/**
 * After a load and before measuring: VACUUM (so autovacuum does not wake up on the fresh tables in
 * the middle of a window and the visibility map is set) and a CHECKPOINT (so no timed checkpoint of
 * the load's writes lands in a window). Untimed: neither belongs to the load or the run.
 */
import postgres from 'postgres';

export async function settle(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    await sql.unsafe('vacuum');
    await sql.unsafe('checkpoint');
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export async function checkpoint(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    await sql.unsafe('checkpoint');
  } finally {
    await sql.end({ timeout: 5 });
  }
}
