/** What section 1's MariaDB floor child (tpcc-floor-child.ts) is asked, and what it answers. */
export interface TpccFloorRequest {
  /** The MariaDB database section 1 loaded (mysql2 connects with it). */
  url: string;
  warehouses: number;
  terminals: number;
  /** txbench's client-SQL batches, or its CALLs. */
  mode: 'clientSql' | 'procedures';
  warmupMs: number;
  durationMs: number;
}

export interface TpccFloorResult {
  transactions: number;
  /** Socket reads (the client woken with bytes) in the window. */
  reads: number;
  /** Error answers in the window. */
  errors: number;
  seconds: number;
  cpuS: number;
}
