/**
 * The part of the `mssql` driver (over tedious) that txbench uses, declared by shape: the package
 * ships no type declarations, and it is loaded only when a `mssql://` or `sqlserver://` URL is
 * opened, so a PostgreSQL or SQLite user never loads tedious.
 */
import { createRequire } from 'node:module';

/** What a type factory such as `sql.Int()` or `sql.VarChar(16)` returns; opaque to txbench. */
export interface MssqlTypeSpec {
  readonly type: unknown;
  readonly length?: number | undefined;
  readonly precision?: number | undefined;
  readonly scale?: number | undefined;
}

export type MssqlRow = Record<string, unknown>;

export interface MssqlResult {
  recordsets: MssqlRow[][];
  recordset?: MssqlRow[] | undefined;
  rowsAffected: number[];
}

export interface MssqlColumnOptions {
  nullable: boolean;
  length?: number | undefined;
}

/** `new sql.Table(name)`: column definitions and rows for `request.bulk`. */
export interface MssqlTable {
  create: boolean;
  readonly columns: {
    add(name: string, type: MssqlTypeSpec, options: MssqlColumnOptions): number;
    readonly length: number;
  };
  readonly rows: unknown[][] & { clear(): void };
}

/** Passed through to tedious's `newBulkLoad`. */
export interface MssqlBulkOptions {
  /** `WITH (TABLOCK)`: bulk-update locks, so several loaders can fill one heap at once. */
  lockTable?: boolean;
  keepNulls?: boolean;
  checkConstraints?: boolean;
}

export interface MssqlRequest {
  input(name: string, type: MssqlTypeSpec, value: unknown): MssqlRequest;
  query(command: string): Promise<MssqlResult>;
  execute(procedure: string): Promise<MssqlResult>;
  bulk(table: MssqlTable, options?: MssqlBulkOptions): Promise<{ rowsAffected: number }>;
  /** Sends the server an attention for the running request (the transaction timeout). */
  cancel(): void;
}

export interface MssqlPool {
  connect(): Promise<MssqlPool>;
  close(): Promise<void>;
  request(): MssqlRequest;
  /** Borrows one connection (used to open the whole pool up front). */
  acquire(requester: object): Promise<unknown>;
  release(connection: unknown): MssqlPool;
  on(event: 'error', listener: (err: unknown) => void): MssqlPool;
}

/** `new sql.Transaction(pool)`: one pooled connection from begin to commit or rollback. */
export interface MssqlTransaction {
  begin(): Promise<MssqlTransaction>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  request(): MssqlRequest;
}

/** The configuration object `new sql.ConnectionPool(config)` takes (the keys txbench sets). */
export interface MssqlPoolConfig {
  server: string;
  port?: number | undefined;
  database?: string | undefined;
  user?: string | undefined;
  password?: string | undefined;
  domain?: string | undefined;
  connectionTimeout: number;
  requestTimeout: number;
  /** `'socket'`: check the socket on acquire instead of sending `SELECT 1` (a round trip each time). */
  validateConnection: boolean | 'socket';
  pool: { max: number; min: number; idleTimeoutMillis: number };
  options: {
    encrypt: boolean | 'strict';
    trustServerCertificate: boolean;
    instanceName?: string | undefined;
    appName: string;
    useUTC: boolean;
    enableArithAbort: boolean;
    abortTransactionOnError: boolean;
    packetSize?: number | undefined;
  };
}

export interface MssqlModule {
  ConnectionPool: new (config: MssqlPoolConfig) => MssqlPool;
  Transaction: new (pool: MssqlPool) => MssqlTransaction;
  Table: new (name: string) => MssqlTable;
  MAX: number;
  Int(): MssqlTypeSpec;
  BigInt(): MssqlTypeSpec;
  SmallInt(): MssqlTypeSpec;
  TinyInt(): MssqlTypeSpec;
  Bit(): MssqlTypeSpec;
  Float(): MssqlTypeSpec;
  Real(): MssqlTypeSpec;
  Numeric(precision: number, scale: number): MssqlTypeSpec;
  Decimal(precision: number, scale: number): MssqlTypeSpec;
  VarChar(length?: number): MssqlTypeSpec;
  NVarChar(length?: number): MssqlTypeSpec;
  Char(length: number): MssqlTypeSpec;
  NChar(length: number): MssqlTypeSpec;
  VarBinary(length?: number): MssqlTypeSpec;
  DateTime2(scale?: number): MssqlTypeSpec;
  DateTime(): MssqlTypeSpec;
  Date(): MssqlTypeSpec;
}

const require = createRequire(import.meta.url);

/** The driver, loaded on first use (Node's module cache answers the calls after it). */
export function loadMssql(): MssqlModule {
  return require('mssql') as MssqlModule;
}
