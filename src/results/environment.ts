/** run.json's `environment`: where a run happened (written by run/environment.ts). */
import type { DeviceInfo, HostInfo } from '../monitor/host.js';

/** The device under test: described when the data directory is here, else remote and unknown. */
export type DeviceUnderTest = ({ kind: 'local' } & DeviceInfo) | { kind: 'remote'; reason: string };

export interface RunEnvironment {
  host: HostInfo;
  database: { product: string; version: string; settings: Record<string, string> };
  /** The data directory as the server (or the embedded target) gives it: a path on the server's machine. */
  dataDirectory?: string | undefined;
  device: DeviceUnderTest;
}
