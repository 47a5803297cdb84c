/**
 * `${NAME}` references in a config file's values, replaced from the environment.
 */
import { parse as parseYaml } from 'yaml';

export type Report = (where: string, what: string) => void;

const REFERENCE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Replaces each `${NAME}` in a string value by the variable's value (`$${` is a literal `${`).
 * A value that is one reference and nothing else takes the type YAML gives the variable's text,
 * so `terminals: ${TERMINALS}` is a number and `index: ${JOB_COMPLETION_INDEX}` an integer.
 */
export function interpolate(value: unknown, where: string, env: NodeJS.ProcessEnv, report: Report): unknown {
  if (typeof value === 'string') {
    if (!value.includes('${')) return value;
    let missing = false;
    const replaced = value.replace(REFERENCE, (whole, name: string | undefined) => {
      if (name === undefined) return '${';
      const v = env[name];
      if (v === undefined || v === '') {
        report(where, `\${${name}} is not set in the environment; set it or write the value`);
        missing = true;
        return whole;
      }
      return v;
    });
    if (missing) return value;
    const whole = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(value);
    if (whole) {
      try {
        const typed: unknown = parseYaml(replaced);
        if (typeof typed === 'number' || typeof typed === 'boolean') return typed;
      } catch {
        // Not a YAML scalar: it stays text.
      }
    }
    return replaced;
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolate(v, `${where}[${i}]`, env, report));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        interpolate(v, where === '' ? k : `${where}.${k}`, env, report),
      ]),
    );
  }
  return value;
}
