/**
 * The nine TPC-C tables with their conventional names (DESIGN.md), for PostgreSQL.
 * Keys and secondary indexes are separate statements so the loader creates them after the data.
 */

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

export const CREATE_TABLES: Readonly<Record<TableName, string>> = {
  warehouse: `create table warehouse (
    w_id integer not null, w_name varchar(10), w_street_1 varchar(20), w_street_2 varchar(20),
    w_city varchar(20), w_state char(2), w_zip char(9), w_tax numeric(4,4), w_ytd numeric(12,2))`,
  district: `create table district (
    d_id integer not null, d_w_id integer not null, d_name varchar(10), d_street_1 varchar(20),
    d_street_2 varchar(20), d_city varchar(20), d_state char(2), d_zip char(9), d_tax numeric(4,4),
    d_ytd numeric(12,2), d_next_o_id integer)`,
  customer: `create table customer (
    c_id integer not null, c_d_id integer not null, c_w_id integer not null, c_first varchar(16),
    c_middle char(2), c_last varchar(16), c_street_1 varchar(20), c_street_2 varchar(20), c_city varchar(20),
    c_state char(2), c_zip char(9), c_phone char(16), c_since timestamp, c_credit char(2),
    c_credit_lim numeric(12,2), c_discount numeric(4,4), c_balance numeric(12,2), c_ytd_payment numeric(12,2),
    c_payment_cnt integer, c_delivery_cnt integer, c_data varchar(500))`,
  history: `create table history (
    h_c_id integer, h_c_d_id integer, h_c_w_id integer, h_d_id integer, h_w_id integer,
    h_date timestamp, h_amount numeric(6,2), h_data varchar(24))`,
  orders: `create table orders (
    o_id integer not null, o_d_id integer not null, o_w_id integer not null, o_c_id integer,
    o_entry_d timestamp, o_carrier_id integer, o_ol_cnt integer, o_all_local integer)`,
  new_order: `create table new_order (
    no_o_id integer not null, no_d_id integer not null, no_w_id integer not null)`,
  order_line: `create table order_line (
    ol_o_id integer not null, ol_d_id integer not null, ol_w_id integer not null, ol_number integer not null,
    ol_i_id integer, ol_supply_w_id integer, ol_delivery_d timestamp, ol_quantity integer,
    ol_amount numeric(6,2), ol_dist_info char(24))`,
  stock: `create table stock (
    s_i_id integer not null, s_w_id integer not null, s_quantity integer,
    s_dist_01 char(24), s_dist_02 char(24), s_dist_03 char(24), s_dist_04 char(24), s_dist_05 char(24),
    s_dist_06 char(24), s_dist_07 char(24), s_dist_08 char(24), s_dist_09 char(24), s_dist_10 char(24),
    s_ytd numeric(8), s_order_cnt integer, s_remote_cnt integer, s_data varchar(50))`,
  item: `create table item (
    i_id integer not null, i_im_id integer, i_name varchar(24), i_price numeric(5,2), i_data varchar(50))`,
};

/** Column lists in the order the loader writes them. */
export const COLUMNS: Readonly<Record<TableName, readonly string[]>> = {
  warehouse: ['w_id', 'w_name', 'w_street_1', 'w_street_2', 'w_city', 'w_state', 'w_zip', 'w_tax', 'w_ytd'],
  district: [
    'd_id',
    'd_w_id',
    'd_name',
    'd_street_1',
    'd_street_2',
    'd_city',
    'd_state',
    'd_zip',
    'd_tax',
    'd_ytd',
    'd_next_o_id',
  ],
  customer: [
    'c_id',
    'c_d_id',
    'c_w_id',
    'c_first',
    'c_middle',
    'c_last',
    'c_street_1',
    'c_street_2',
    'c_city',
    'c_state',
    'c_zip',
    'c_phone',
    'c_since',
    'c_credit',
    'c_credit_lim',
    'c_discount',
    'c_balance',
    'c_ytd_payment',
    'c_payment_cnt',
    'c_delivery_cnt',
    'c_data',
  ],
  history: ['h_c_id', 'h_c_d_id', 'h_c_w_id', 'h_d_id', 'h_w_id', 'h_date', 'h_amount', 'h_data'],
  orders: ['o_id', 'o_d_id', 'o_w_id', 'o_c_id', 'o_entry_d', 'o_carrier_id', 'o_ol_cnt', 'o_all_local'],
  new_order: ['no_o_id', 'no_d_id', 'no_w_id'],
  order_line: [
    'ol_o_id',
    'ol_d_id',
    'ol_w_id',
    'ol_number',
    'ol_i_id',
    'ol_supply_w_id',
    'ol_delivery_d',
    'ol_quantity',
    'ol_amount',
    'ol_dist_info',
  ],
  stock: [
    's_i_id',
    's_w_id',
    's_quantity',
    's_dist_01',
    's_dist_02',
    's_dist_03',
    's_dist_04',
    's_dist_05',
    's_dist_06',
    's_dist_07',
    's_dist_08',
    's_dist_09',
    's_dist_10',
    's_ytd',
    's_order_cnt',
    's_remote_cnt',
    's_data',
  ],
  item: ['i_id', 'i_im_id', 'i_name', 'i_price', 'i_data'],
};

/**
 * Primary keys and the two secondary indexes, grouped by table and biggest first so that the
 * loader can build them on several connections at once.
 */
export const KEYS_AND_INDEXES: readonly { table: TableName; statements: readonly string[] }[] = [
  {
    table: 'order_line',
    statements: ['alter table order_line add primary key (ol_w_id, ol_d_id, ol_o_id, ol_number)'],
  },
  { table: 'stock', statements: ['alter table stock add primary key (s_w_id, s_i_id)'] },
  {
    table: 'customer',
    statements: [
      'alter table customer add primary key (c_w_id, c_d_id, c_id)',
      'create index customer_name_idx on customer (c_w_id, c_d_id, c_last, c_first)',
    ],
  },
  {
    table: 'orders',
    statements: [
      'alter table orders add primary key (o_w_id, o_d_id, o_id)',
      'create unique index orders_customer_idx on orders (o_w_id, o_d_id, o_c_id, o_id)',
    ],
  },
  { table: 'new_order', statements: ['alter table new_order add primary key (no_w_id, no_d_id, no_o_id)'] },
  { table: 'item', statements: ['alter table item add primary key (i_id)'] },
  { table: 'district', statements: ['alter table district add primary key (d_w_id, d_id)'] },
  { table: 'warehouse', statements: ['alter table warehouse add primary key (w_id)'] },
];

export function dropStatements(): string[] {
  return [...TABLES, META_TABLE].map((t) => `drop table if exists ${t} cascade`);
}
