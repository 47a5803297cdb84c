import { beforeAll, describe, expect, it } from 'vitest';
import { ensureParser, templateOf } from '../../src/capture/fingerprint.js';
import { placeholderFor, redactSql } from '../../src/capture/redact.js';
import { txBoundary } from '../../src/capture/sql-text.js';

beforeAll(() => ensureParser());

describe('templates', () => {
  it('PostgreSQL: the parser fingerprint ignores constants, parameter numbers, case and spacing', () => {
    const a = templateOf("select * from customer where c_id = 12 and c_last = 'BARBAR'", 'postgres');
    const b = templateOf('SELECT *\n  FROM customer WHERE c_id = $1 AND c_last = $2', 'postgres');
    expect(a.id).toBe(b.id);
    expect(a.id).toMatch(/^pg-[0-9a-f]{16}$/);
    expect(a.text).toBe('select * from customer where c_id = $1 and c_last = $2');
    expect(templateOf('select * from customer where c_id = 1 and c_w_id = 1', 'postgres').id).not.toBe(a.id);
  });

  it('PostgreSQL: text the parser refuses still gets a template of its own', () => {
    const t = templateOf("selec 1 from x where y = 'a'", 'postgres');
    expect(t.id).toMatch(/^txt-/);
    expect(t.text).toBe('selec ? from x where y = ?');
  });

  it('MySQL: pt-query-digest fingerprints (literals, NULL, IN and VALUES lists, comments, case)', () => {
    const a = templateOf("SELECT c FROM sbtest1 WHERE id IN (1, 2, 3) AND k = 'x' /* hint */", 'mysql');
    const b = templateOf('select c from sbtest1 where id in (7) and k = "y"', 'mysql');
    expect(a.id).toBe(b.id);
    expect(a.text).toBe('select c from sbtest1 where id in(?+) and k = ?');
    expect(templateOf('INSERT INTO t VALUES (1, NULL), (2, 0x1F)', 'mysql').text).toBe(
      'insert into t values(?+)',
    );
    expect(templateOf("update t set a = -5 where b = 'it\\'s'", 'mysql').text).toBe(
      'update t set a = ? where b = ?',
    );
  });

  it('SQL Server: N-strings and bracketed names', () => {
    const t = templateOf("exec sp_executesql N'select * from [t] where a = @p', N'@p int', @p=5", 'mssql');
    expect(t.text).toBe('exec sp_executesql ?,?,@p=?');
  });
});

describe('redaction', () => {
  it.each([
    ['42', '?int'],
    ['-1.5e3', '?num'],
    ['t', '?bool'],
    ['2024-05-01 10:00:00+02', '?time'],
    ['{1,2,3}', '?array'],
    ['\\x0fff', '?hex'],
    ['Alice', '?str'],
  ])('parameter %s becomes %s', (value, placeholder) => {
    expect(placeholderFor(value)).toBe(placeholder);
  });

  it('PostgreSQL text: every kind of literal and every comment, through the parser scanner', async () => {
    const sql = "select /* user alice */ 'a''b', E'\\n', $$x$$, 12, 1.5, x'0f' from t where id = $1 -- tail";
    const out = await redactSql(sql, 'postgres');
    expect(out).not.toMatch(/alice|a''b|\$\$x|12|1\.5|0f|tail/);
    expect(out).toContain('?str, ?str, ?str, ?int, ?num, ?hex');
    expect(out).toContain('$1');
  });

  it('MySQL text: strings with escapes, hex, numbers and comments', async () => {
    expect(await redactSql("select 'it\\'s', 0x1f, 12, 2.5 from t # secret", 'mysql')).toBe(
      'select ?str, ?hex, ?int, ?num from t  ',
    );
  });
});

describe('transaction boundaries', () => {
  it.each([
    ['BEGIN', 'begin'],
    ['begin isolation level serializable', 'begin'],
    ['START TRANSACTION', 'begin'],
    ['/* x */ commit', 'commit'],
    ['END', 'commit'],
    ['rollback', 'rollback'],
    ['ROLLBACK TO SAVEPOINT a', undefined],
    ['rollback to a', undefined],
    ["COMMIT PREPARED 'x'", undefined],
    ['select 1', undefined],
    ['begin; update t set a = 1; commit', undefined],
    ['update t set a = 1; commit', 'commit'],
  ])('%s → %s', (sql, boundary) => {
    expect(txBoundary(sql)).toBe(boundary);
  });
});
