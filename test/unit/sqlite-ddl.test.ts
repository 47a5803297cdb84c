import { describe, expect, it } from 'vitest';
import { sqliteSql } from '../../src/dialects/sqlite/dialect.js';
import { afterDataStatements, createTableStatement, TABLES } from '../../src/workloads/tpcc/schema.js';
import { columnType, sqliteDdl, sqliteTpcc } from '../../src/workloads/tpcc/sqlite/index.js';

describe('SQLite DDL', () => {
  it('maps the spec types to the names that give SQLite the right affinity', () => {
    expect(columnType({ kind: 'int' })).toBe('integer');
    expect(columnType({ kind: 'varchar', size: 24 })).toBe('varchar(24)');
    expect(columnType({ kind: 'char', size: 2 })).toBe('char(2)');
    expect(columnType({ kind: 'numeric', precision: 12, scale: 2 })).toBe('numeric(12,2)');
    expect(columnType({ kind: 'timestamp' })).toBe('text');
  });

  it('puts primary keys in CREATE TABLE: SQLite cannot add one to a table later', () => {
    expect(sqliteDdl.keysInCreateTable).toBe(true);
    // A one-column INTEGER key becomes the rowid itself: one B-tree search per item.
    expect(createTableStatement(sqliteDdl, 'warehouse')).toBe(
      'create table warehouse (w_id integer not null, w_name varchar(10), w_street_1 varchar(20), ' +
        'w_street_2 varchar(20), w_city varchar(20), w_state char(2), w_zip char(9), w_tax numeric(4,4), ' +
        'w_ytd numeric(12,2), primary key (w_id))',
    );
    expect(createTableStatement(sqliteDdl, 'order_line')).toMatch(
      /ol_delivery_d text, .*ol_amount numeric\(6,2\), ol_dist_info char\(24\), primary key \(ol_w_id, ol_d_id, ol_o_id, ol_number\)\)$/,
    );
    expect(createTableStatement(sqliteDdl, 'history')).not.toMatch(/primary key/);
  });

  it('leaves only the secondary indexes for after the data', () => {
    expect(afterDataStatements(sqliteDdl).flatMap((g) => g.statements)).toEqual([
      'create index customer_name_idx on customer (c_w_id, c_d_id, c_last, c_first)',
      'create unique index orders_customer_idx on orders (o_w_id, o_d_id, o_c_id, o_id)',
    ]);
    expect(sqliteDdl.addPrimaryKey('stock', ['s_w_id', 's_i_id'])).toBe(
      'create unique index stock_pkey on stock (s_w_id, s_i_id)',
    );
  });

  it('analyzes each table', () => {
    expect(TABLES.map((t) => sqliteTpcc.analyze(t))).toEqual(TABLES.map((t) => [`analyze ${t}`]));
  });

  it('spells the portable SQL of the checks the SQLite way', () => {
    expect(sqliteSql.distinct('a', 'b')).toBe('a is not b');
    expect(sqliteSql.length('c_data')).toBe('length(c_data)');
    expect(sqliteSql.intDiv('c_id - 1', '10')).toBe('(c_id - 1) / (10)');
    expect(sqliteSql.concat('a', "'b'", 'c')).toBe("a || 'b' || c");
    expect([sqliteSql.param(1), sqliteSql.param(2)]).toEqual(['?', '?']);
    expect(sqliteSql.money('sum(h_amount)')).toBe('round(sum(h_amount), 2)');
  });

  it('says it is a single-writer database without procedures', () => {
    expect(sqliteTpcc.dialect.capabilities).toEqual({ procedures: false, concurrentWriters: false });
  });
});
