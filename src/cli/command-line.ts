/**
 * The command line a run was started with, as run.json records it (`commandLine`): so a report
 * can say exactly how to repeat the run. Passwords in connection URLs are replaced by ***.
 */
import { redactUrl } from '../util/redact.js';

let recorded: string | undefined;

export function recordCommandLine(argv: readonly string[]): void {
  recorded = ['txbench', ...argv].map((arg) => quote(redactArg(arg))).join(' ');
}

export function recordedCommandLine(): string | undefined {
  return recorded;
}

function redactArg(arg: string): string {
  // `--db=postgres://…` and bare URLs alike; anything else has no password in it.
  const eq = arg.indexOf('=');
  if (arg.startsWith('--') && eq > 0) return `${arg.slice(0, eq + 1)}${redactArg(arg.slice(eq + 1))}`;
  return arg.includes('://') || /(pass|secret|token)\w*\s*=/i.test(arg) ? redactUrl(arg) : arg;
}

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
