/**
 * A PostgreSQL slot whose rollback cannot run is replaced, not tried again on, on both client
 * paths (postgres.js and the wire client), against a real server: a transaction fails with a
 * retryable error (55P03, a row the test holds locked, NOWAIT) and the server then ends its
 * session (idle_in_transaction_session_timeout) before the executor's rollback. The transaction
 * fails as what it was (a lock timeout, no retry on a dead connection counted as a lost
 * connection), the slot gets a new connection, and the slot's next transaction runs on it.
 * Drives the compiled code (run `npm run build` first).
 */
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connections, Session } from '../../dist/dialects/connections.js';
import { openPostgresConnections } from '../../dist/dialects/postgres/connections.js';
import { openWireConnections } from '../../dist/dialects/postgres/wire/slots.js';
import { wireTarget } from '../../dist/dialects/postgres/wire/target.js';
import { Rng } from '../../dist/random/rng.js';
import { WorkloadExecutor } from '../../dist/workloads/executor.js';
import { startTempServer, type TempServer } from './helpers.js';

let pg: TempServer;
let side: postgres.Sql;

beforeAll(async () => {
  pg = await startTempServer();
  side = postgres(pg.url, { max: 1, onnotice: () => undefined });
  await side.unsafe('create table held (k int primary key)');
  await side.unsafe('insert into held values (1)');
}, 120_000);

afterAll(async () => {
  await side?.end({ timeout: 5 });
  await pg?.stop();
});

const paths = ['postgres.js', 'the wire client'] as const;

function open(path: (typeof paths)[number]): Promise<Connections> {
  if (path === 'postgres.js') return openPostgresConnections(pg.url, 1);
  const t = wireTarget(pg.url);
  if (!('target' in t)) throw new Error(`not a wire URL: ${t.unsupported}`);
  return openWireConnections(pg.url, t.target, 1, []);
}

describe('a PostgreSQL rollback that cannot run', () => {
  it.each(paths)(
    '%s: the slot is replaced, the transaction fails as its own class, unretried',
    async (name) => {
      const conns = await open(name);
      let calls = 0;
      let failing = true;
      const ex = new WorkloadExecutor<number, { n: number }>(
        {
          connections: conns,
          async run(_type, tx) {
            calls++;
            const session = tx.session as Session;
            if (!failing) {
              await session.query('select 1');
              return;
            }
            // Long enough that a loaded machine's gap between begin and the select does not end the session.
            await session.execute(`set idle_in_transaction_session_timeout = '1s'`);
            await session.begin();
            try {
              await session.query('select k from held where k = 1 for update nowait');
            } catch (err) {
              // The server ends the session, idle in its failed transaction, before the rollback.
              while (conns.isLost?.(0) !== true) await new Promise((r) => setTimeout(r, 20));
              throw err;
            }
          },
        },
        [0],
        { txnTimeoutMs: 30_000, backoff: { baseMs: 10, capMs: 100 } },
      );
      const lock = side.reserve();
      const holder = await lock;
      try {
        await holder.unsafe('begin');
        await holder.unsafe('select k from held where k = 1 for update');
        const err = await ex.execute(0, 0, { id: 0, rng: new Rng(1) }, { n: 0 }).catch((e: unknown) => e);
        expect((err as { code?: string }).code).toBe('55P03');
        expect(ex.classify(err)).toBe('lockTimeout');
        expect(calls).toBe(1);
        await holder.unsafe('rollback');
        failing = false;
        expect(await ex.execute(0, 0, { id: 0, rng: new Rng(1) }, { n: 0 })).toBe(0);
        expect(ex.faults.reconnects).toBe(1);
        expect(calls).toBe(2);
      } finally {
        holder.release();
        await ex.close();
      }
    },
  );
});
