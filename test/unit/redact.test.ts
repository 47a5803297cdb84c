import { describe, expect, it } from 'vitest';
import { redactText, redactUrl } from '../../src/util/redact.js';

describe('redactUrl', () => {
  it('hides the password of a postgres URL and keeps the rest', () => {
    const out = redactUrl('postgres://u:secret@h/db');
    expect(out).not.toContain('secret');
    expect(out).toBe('postgres://u:***@h/db');
  });

  it.each([
    'postgres://u:secret@h:5432/db',
    'postgresql://admin:secret@db.example.com:6543/tpcc?sslmode=require',
    'postgres://u:secret@10.0.0.1/db',
    'postgres://u:secret@[::1]:5432/db',
  ])('hides the password in %s but keeps user, host, port and database', (url) => {
    const out = redactUrl(url);
    expect(out).not.toContain('secret');
    expect(out).toContain('***');
    const parsed = new URL(url);
    const redacted = new URL(out);
    expect(redacted.username).toBe(parsed.username);
    expect(redacted.host).toBe(parsed.host);
    expect(redacted.pathname).toBe(parsed.pathname);
    expect(redacted.protocol).toBe(parsed.protocol);
  });

  it('hides percent-encoded passwords and passwords with special characters', () => {
    const out = redactUrl('postgres://u:p%40ss%3Aword@h/db');
    expect(out).not.toContain('p%40ss');
    expect(out).not.toContain('word');
    expect(out).toContain('u:***@h');
  });

  it.each([
    'postgres://u@h:5432/db',
    'postgres://h/db',
    'postgresql://localhost:5432/txbench',
    'postgres://u@h/db?sslmode=require&application_name=txbench',
  ])('leaves %s unchanged (no password)', (url) => {
    expect(redactUrl(url)).toBe(url);
  });

  it.each(['password', 'PASSWORD', 'sslpassword', 'token', 'api_secret', 'passfile'])(
    'redacts the query parameter %s',
    (key) => {
      const out = redactUrl(`postgres://u@h/db?sslmode=require&${key}=hunter2`);
      expect(out).not.toContain('hunter2');
      expect(out).toContain(`${key}=***`);
      expect(out).toContain('sslmode=require');
    },
  );

  it('redacts both the userinfo password and password-like query parameters at once', () => {
    const out = redactUrl('postgres://u:secret1@h/db?password=secret2');
    expect(out).not.toContain('secret1');
    expect(out).not.toContain('secret2');
  });

  it('hides the password of a URL it cannot parse (bad port, other scheme)', () => {
    for (const url of ['postgres://u:secret@h:notaport/db', 'mysql://u:secret@h:99999/db']) {
      const out = redactUrl(url);
      expect(out).not.toContain('secret');
      expect(out).toContain('u:***@');
    }
  });

  it('returns text that is not a URL unchanged', () => {
    expect(redactUrl('garbage')).toBe('garbage');
    expect(redactUrl('')).toBe('');
  });
});

describe('redactText', () => {
  it('replaces every occurrence of every secret', () => {
    const out = redactText('password hunter2 failed; hunter2 again, token abc123', ['hunter2', 'abc123']);
    expect(out).toBe('password *** failed; *** again, token ***');
  });

  it('ignores empty secrets and leaves text without secrets unchanged', () => {
    expect(redactText('nothing to hide', [''])).toBe('nothing to hide');
    expect(redactText('nothing to hide', [])).toBe('nothing to hide');
    expect(redactText('nothing to hide', ['absent'])).toBe('nothing to hide');
  });

  it('treats secrets literally, not as patterns', () => {
    expect(redactText('a.b a*b (x)', ['a.b', '(x)'])).toBe('*** a*b ***');
    expect(redactText('axb', ['a.b'])).toBe('axb');
  });

  it('redacts a password inside a connection error message', () => {
    const msg = 'connect ECONNREFUSED for postgres://bob:s3cr3t!@db:5432/tpcc (password s3cr3t!)';
    const out = redactText(msg, ['s3cr3t!']);
    expect(out).not.toContain('s3cr3t');
    expect(out).toContain('postgres://bob:***@db:5432/tpcc');
  });
});

describe('the recorded command line', () => {
  it('hides the password of every connection URL and quotes what a shell would split', async () => {
    const { commandLineOf } = await import('../../src/cli/command-line.js');
    const line = commandLineOf([
      'run',
      '--db',
      'postgres://u:hunter2@db1/tpcc',
      '--db=mysql://r:s3cret@h/x',
      '--label',
      'PX600, 64 GB',
    ]);
    expect(line).not.toMatch(/hunter2|s3cret/);
    expect(line).toBe(
      "txbench run --db 'postgres://u:***@db1/tpcc' '--db=mysql://r:***@h/x' --label 'PX600, 64 GB'",
    );
  });
});
