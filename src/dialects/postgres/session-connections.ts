/**
 * Connection slots for workloads that use only the portable Session (sysbench, TPC-B): the wire
 * path where the URL and the server allow it (wire/), postgres.js otherwise. User workloads get
 * postgres.js slots (`openPostgresConnections`), whose handle they may use directly.
 */
import type { Connections } from '../connections.js';
import { openPostgresConnections } from './connections.js';
import { UnsupportedByWire } from './wire/connection.js';
import { openWireConnections } from './wire/slots.js';
import { wantsWire, wireTarget } from './wire/target.js';

export async function openPostgresSessionConnections(url: string, slots: number): Promise<Connections> {
  if (wantsWire()) {
    const wire = wireTarget(url);
    if ('target' in wire) {
      try {
        return await openWireConnections(url, wire.target, slots, []);
      } catch (err) {
        if (!(err instanceof UnsupportedByWire)) throw err;
      }
    }
  }
  return openPostgresConnections(url, slots);
}
