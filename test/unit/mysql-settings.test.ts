import { describe, expect, it } from 'vitest';
import { settingLiteral, SETTINGS_THAT_MATTER } from '../../src/dialects/mysql/settings.js';

describe('MySQL settings', () => {
  it('writes numbers bare, sizes in bytes and anything else quoted, for SET GLOBAL', () => {
    expect(settingLiteral('2000')).toBe('2000');
    expect(settingLiteral(' 2 ')).toBe('2');
    expect(settingLiteral('0.5')).toBe('0.5');
    expect(settingLiteral('512M')).toBe(String(512 * 1024 ** 2));
    expect(settingLiteral('1G')).toBe(String(1024 ** 3));
    expect(settingLiteral('1GB')).toBe(String(1024 ** 3));
    expect(settingLiteral('64k')).toBe('65536');
    expect(settingLiteral('O_DIRECT')).toBe("'O_DIRECT'");
    expect(settingLiteral('ON')).toBe("'ON'");
    expect(settingLiteral("it's")).toBe("'it''s'");
  });

  it('reports the settings that decide an InnoDB result', () => {
    for (const name of [
      'innodb_buffer_pool_size',
      'innodb_flush_log_at_trx_commit',
      'sync_binlog',
      'log_bin',
    ])
      expect(SETTINGS_THAT_MATTER).toContain(name);
  });
});
