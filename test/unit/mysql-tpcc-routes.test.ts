/**
 * TPC-C procedure mode on MySQL/MariaDB takes the slots' callback route where their sessions have
 * one (executor.ts): each slot's handle is its current session's route, a reconnect's included,
 * and everything else (classifying errors, recovering, reconnecting) stays the slots' own.
 */
import { describe, expect, it } from 'vitest';
import type { CallbackRoute, Connections, Session } from '../../src/dialects/connections.js';
import type { Connection } from '../../src/dialects/mysql/connect.js';
import { onCallbackRoutes } from '../../src/workloads/tpcc/mysql/executor.js';

const route = (name: string): CallbackRoute => ({ name }) as unknown as CallbackRoute;
const session = (callbacks: CallbackRoute | undefined): Session => ({ callbacks }) as unknown as Session;

function slots(sessions: Session[]): Connections<Connection> & { reconnected: number[] } {
  const reconnected: number[] = [];
  return {
    dialect: 'mysql',
    slots: sessions.length,
    serial: false,
    handle: () => ({}) as Connection,
    session: (slot: number) => sessions[slot]!,
    classify: (err: unknown) => ((err as { errno?: number }).errno === 1213 ? 'deadlock' : 'other'),
    isRetryable: () => true,
    recover: async () => undefined,
    reconnect: async (slot: number) => void reconnected.push(slot),
    close: async () => undefined,
    reconnected,
  } as unknown as Connections<Connection> & { reconnected: number[] };
}

describe('TPC-C procedures on MySQL slots: the callback route as the handle', () => {
  it("hands each slot its current session's route, and leaves the rest to the slots", async () => {
    const sessions = [session(route('a0')), session(route('b0'))];
    const conns = slots(sessions);
    const routes = onCallbackRoutes(conns);
    expect(routes).toBeDefined();
    expect(routes!.handle(0)).toBe(sessions[0]!.callbacks);
    expect(routes!.handle(1)).toBe(sessions[1]!.callbacks);
    // A reconnect replaces the slot's session: its new route is the handle from then on.
    sessions[1] = session(route('b1'));
    expect(routes!.handle(1)).toBe(sessions[1]!.callbacks);
    expect(routes!.classify(Object.assign(new Error('deadlock'), { errno: 1213 }))).toBe('deadlock');
    expect(routes!.slots).toBe(2);
    await routes!.reconnect(1, 1000);
    expect(conns.reconnected).toEqual([1]);
  });

  it('is undefined for sessions without a callback route: the promise path then', () => {
    expect(onCallbackRoutes(slots([session(undefined)]))).toBeUndefined();
  });
});
