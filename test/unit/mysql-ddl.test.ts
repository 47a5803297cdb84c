import { describe, expect, it } from 'vitest';
import { mysqlSqlFlavor } from '../../src/dialects/mysql/dialect.js';
import { loadDataStatement, insertStatements, sqlValue } from '../../src/dialects/mysql/bulk.js';
import { afterDataStatements, COLUMNS, createTableStatement } from '../../src/workloads/tpcc/schema.js';
import { mysqlColumnType, mysqlDdl, mysqlTpcc } from '../../src/workloads/tpcc/mysql/index.js';

describe('MySQL DDL', () => {
  it('maps the spec types to InnoDB column types', () => {
    expect(mysqlColumnType({ kind: 'int' })).toBe('int');
    expect(mysqlColumnType({ kind: 'varchar', size: 24 })).toBe('varchar(24)');
    expect(mysqlColumnType({ kind: 'char', size: 2 })).toBe('char(2)');
    expect(mysqlColumnType({ kind: 'numeric', precision: 12, scale: 2 })).toBe('decimal(12,2)');
    expect(mysqlColumnType({ kind: 'timestamp' })).toBe('datetime(6)');
  });

  it('puts the primary key in CREATE TABLE, with the InnoDB engine', () => {
    expect(createTableStatement(mysqlDdl, 'new_order')).toBe(
      'create table new_order (no_o_id int not null, no_d_id int not null, no_w_id int not null, ' +
        'primary key (no_w_id, no_d_id, no_o_id)) engine=innodb',
    );
    const stock = createTableStatement(mysqlDdl, 'stock');
    expect(stock).toMatch(/^create table stock \(s_i_id int not null, s_w_id int not null, s_quantity int, /);
    expect(stock).toContain('s_dist_01 char(24)');
    expect(stock).toContain('s_ytd decimal(8,0)');
    expect(stock).toMatch(/primary key \(s_w_id, s_i_id\)\) engine=innodb$/);
    expect(createTableStatement(mysqlDdl, 'history')).not.toContain('primary key');
    expect(createTableStatement(mysqlDdl, 'customer')).toContain('c_since datetime(6)');
  });

  it('builds only the secondary indexes after the data', () => {
    expect(afterDataStatements(mysqlDdl).flatMap((g) => g.statements)).toEqual([
      'create index customer_name_idx on customer (c_w_id, c_d_id, c_last, c_first)',
      'create unique index orders_customer_idx on orders (o_w_id, o_d_id, o_c_id, o_id)',
    ]);
  });

  it('analyzes with ANALYZE TABLE', () => {
    expect(mysqlTpcc.analyze('stock')).toEqual(['analyze table stock']);
  });
});

describe('MySQL SQL flavor', () => {
  it('spells the portable fragments the checks use', () => {
    expect(mysqlSqlFlavor.distinct('a', 'b')).toBe('not (a <=> b)');
    expect(mysqlSqlFlavor.length('c_data')).toBe('char_length(c_data)');
    expect(mysqlSqlFlavor.intDiv('c_id - 1', '10')).toBe('((c_id - 1) div (10))');
    expect(mysqlSqlFlavor.concat('a', "'b'", 'c')).toBe("concat(a, 'b', c)");
    expect(mysqlSqlFlavor.param(1)).toBe('?');
    expect(mysqlSqlFlavor.param(2)).toBe('?');
  });
});

describe('MySQL bulk load', () => {
  it('loads COPY text with LOAD DATA LOCAL INFILE: tab-separated, \\N for NULL', () => {
    expect(loadDataStatement('new_order', COLUMNS.new_order)).toBe(
      "load data local infile 'txbench:new_order' into table new_order character set latin1 " +
        "fields terminated by '\\t' escaped by '\\\\' lines terminated by '\\n' (no_o_id, no_d_id, no_w_id)",
    );
  });

  it('turns COPY text fields into SQL values', () => {
    expect(sqlValue('\\N')).toBe('NULL');
    expect(sqlValue('12.50')).toBe("'12.50'");
    expect(sqlValue("O'Brien")).toBe("'O''Brien'");
    expect(sqlValue('a\\b')).toBe("'a\\\\b'");
  });

  it('falls back to multi-row INSERTs of about the given size', () => {
    const chunk = (rows: string[]): Buffer => Buffer.from(rows.map((r) => `${r}\n`).join(''), 'latin1');
    const statements = [
      ...insertStatements(
        'orders',
        ['o_id', 'o_carrier_id'],
        [chunk(['1\t5', '2\t\\N']), chunk(['3\t7'])],
        12,
      ),
    ];
    expect(statements).toEqual([
      "insert into orders (o_id, o_carrier_id) values ('1','5'),('2',NULL)",
      "insert into orders (o_id, o_carrier_id) values ('3','7')",
    ]);
    expect([...insertStatements('t', ['a'], [chunk(['1', '2', '3'])])]).toEqual([
      "insert into t (a) values ('1'),('2'),('3')",
    ]);
    expect([...insertStatements('t', ['a'], [])]).toEqual([]);
  });
});
