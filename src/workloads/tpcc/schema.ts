/**
 * The nine TPC-C tables with their conventional names (DESIGN.md), described once and rendered
 * per database by a small DDL flavor. Keys and secondary indexes are separate statements so the
 * loader can create them after the data where the database allows it.
 */

import type { ColumnType, DdlFlavor } from '../../dialects/ddl.js';
import {
  afterDataStatements as afterDataOf,
  createTableStatement as createTableOf,
  type TableSpec,
} from '../schema.js';

export const TABLES = [
  'warehouse',
  'district',
  'customer',
  'history',
  'orders',
  'new_order',
  'order_line',
  'stock',
  'item',
] as const;
export type TableName = (typeof TABLES)[number];

export const META_TABLE = 'txbench_meta';

export type { ColumnType, DdlFlavor };

const int: ColumnType = { kind: 'int' };
const varchar = (size: number): ColumnType => ({ kind: 'varchar', size });
const char = (size: number): ColumnType => ({ kind: 'char', size });
const numeric = (precision: number, scale: number): ColumnType => ({ kind: 'numeric', precision, scale });
const timestamp: ColumnType = { kind: 'timestamp' };
const dists = Array.from(
  { length: 10 },
  (_, i) => [`s_dist_${String(i + 1).padStart(2, '0')}`, char(24)] as const,
);

/** Columns in the order the loader writes them; key columns are NOT NULL. */
export const COLUMN_TYPES: Readonly<Record<TableName, readonly (readonly [string, ColumnType])[]>> = {
  warehouse: [
    ['w_id', int],
    ['w_name', varchar(10)],
    ['w_street_1', varchar(20)],
    ['w_street_2', varchar(20)],
    ['w_city', varchar(20)],
    ['w_state', char(2)],
    ['w_zip', char(9)],
    ['w_tax', numeric(4, 4)],
    ['w_ytd', numeric(12, 2)],
  ],
  district: [
    ['d_id', int],
    ['d_w_id', int],
    ['d_name', varchar(10)],
    ['d_street_1', varchar(20)],
    ['d_street_2', varchar(20)],
    ['d_city', varchar(20)],
    ['d_state', char(2)],
    ['d_zip', char(9)],
    ['d_tax', numeric(4, 4)],
    ['d_ytd', numeric(12, 2)],
    ['d_next_o_id', int],
  ],
  customer: [
    ['c_id', int],
    ['c_d_id', int],
    ['c_w_id', int],
    ['c_first', varchar(16)],
    ['c_middle', char(2)],
    ['c_last', varchar(16)],
    ['c_street_1', varchar(20)],
    ['c_street_2', varchar(20)],
    ['c_city', varchar(20)],
    ['c_state', char(2)],
    ['c_zip', char(9)],
    ['c_phone', char(16)],
    ['c_since', timestamp],
    ['c_credit', char(2)],
    ['c_credit_lim', numeric(12, 2)],
    ['c_discount', numeric(4, 4)],
    ['c_balance', numeric(12, 2)],
    ['c_ytd_payment', numeric(12, 2)],
    ['c_payment_cnt', int],
    ['c_delivery_cnt', int],
    ['c_data', varchar(500)],
  ],
  history: [
    ['h_c_id', int],
    ['h_c_d_id', int],
    ['h_c_w_id', int],
    ['h_d_id', int],
    ['h_w_id', int],
    ['h_date', timestamp],
    ['h_amount', numeric(6, 2)],
    ['h_data', varchar(24)],
  ],
  orders: [
    ['o_id', int],
    ['o_d_id', int],
    ['o_w_id', int],
    ['o_c_id', int],
    ['o_entry_d', timestamp],
    ['o_carrier_id', int],
    ['o_ol_cnt', int],
    ['o_all_local', int],
  ],
  new_order: [
    ['no_o_id', int],
    ['no_d_id', int],
    ['no_w_id', int],
  ],
  order_line: [
    ['ol_o_id', int],
    ['ol_d_id', int],
    ['ol_w_id', int],
    ['ol_number', int],
    ['ol_i_id', int],
    ['ol_supply_w_id', int],
    ['ol_delivery_d', timestamp],
    ['ol_quantity', int],
    ['ol_amount', numeric(6, 2)],
    ['ol_dist_info', char(24)],
  ],
  stock: [
    ['s_i_id', int],
    ['s_w_id', int],
    ['s_quantity', int],
    ...dists,
    ['s_ytd', numeric(8, 0)],
    ['s_order_cnt', int],
    ['s_remote_cnt', int],
    ['s_data', varchar(50)],
  ],
  item: [
    ['i_id', int],
    ['i_im_id', int],
    ['i_name', varchar(24)],
    ['i_price', numeric(5, 2)],
    ['i_data', varchar(50)],
  ],
};

export const COLUMNS: Readonly<Record<TableName, readonly string[]>> = Object.fromEntries(
  TABLES.map((t) => [t, COLUMN_TYPES[t].map(([name]) => name)]),
) as unknown as Record<TableName, readonly string[]>;

export const PRIMARY_KEYS: Readonly<Record<TableName, readonly string[] | undefined>> = {
  warehouse: ['w_id'],
  district: ['d_w_id', 'd_id'],
  customer: ['c_w_id', 'c_d_id', 'c_id'],
  history: undefined,
  orders: ['o_w_id', 'o_d_id', 'o_id'],
  new_order: ['no_w_id', 'no_d_id', 'no_o_id'],
  order_line: ['ol_w_id', 'ol_d_id', 'ol_o_id', 'ol_number'],
  stock: ['s_w_id', 's_i_id'],
  item: ['i_id'],
};

/** The two secondary indexes every kit adds: customers by name, a customer's newest order. */
export const SECONDARY_INDEXES: readonly {
  name: string;
  table: TableName;
  columns: string[];
  unique: boolean;
}[] = [
  {
    name: 'customer_name_idx',
    table: 'customer',
    columns: ['c_w_id', 'c_d_id', 'c_last', 'c_first'],
    unique: false,
  },
  {
    name: 'orders_customer_idx',
    table: 'orders',
    columns: ['o_w_id', 'o_d_id', 'o_c_id', 'o_id'],
    unique: true,
  },
];

/** The tables as the generic loader takes them: biggest first, so key building ends together. */
export const TPCC_TABLES: readonly TableSpec[] = (
  [
    'order_line',
    'stock',
    'customer',
    'orders',
    'new_order',
    'item',
    'district',
    'warehouse',
    'history',
  ] as const
).map((name) => ({
  name,
  columns: COLUMN_TYPES[name],
  primaryKey: PRIMARY_KEYS[name],
  indexes: SECONDARY_INDEXES.filter((i) => i.table === name),
}));

const spec = (table: TableName): TableSpec => TPCC_TABLES.find((t) => t.name === table)!;

export function createTableStatement(flavor: DdlFlavor, table: TableName): string {
  return createTableOf(flavor, spec(table));
}

/** Keys and indexes to build after the data, grouped by table, biggest tables first. */
export function afterDataStatements(flavor: DdlFlavor): { table: TableName; statements: string[] }[] {
  return afterDataOf(flavor, TPCC_TABLES) as { table: TableName; statements: string[] }[];
}

export function dropStatements(): string[] {
  return [...TABLES, META_TABLE].map((t) => `drop table if exists ${t}`);
}
