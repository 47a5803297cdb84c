/** What section 10's measuring child is asked, what it answers, and one of its connections. */
export interface FloorRequest {
  /** PostgreSQL's wire protocol by hand, or MySQL/MariaDB's after mysql2 has connected and prepared. */
  dialect: 'postgres' | 'mysql';
  /** MariaDB only: the URL mysql2 connects with (the throw-away server's own user). */
  url?: string;
  host: string;
  port: number;
  user: string;
  database: string;
  tables: number;
  tableSize: number;
  connections: number;
  warmupMs: number;
  durationMs: number;
}

export interface FloorResult {
  statements: number;
  seconds: number;
  cpuS: number;
}

/** A connection of the loop: `send` one point select on a random table; `onReady` at its answer's end. */
export interface FloorLink {
  send: () => void;
  onReady: () => void;
  close: () => void;
}
