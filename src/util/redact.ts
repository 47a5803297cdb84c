/** Connection URLs and messages with the password replaced, for every log, report and error. */

export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    for (const key of [...parsed.searchParams.keys()]) {
      if (/pass|secret|token/i.test(key)) parsed.searchParams.set(key, '***');
    }
    return parsed.toString();
  } catch {
    // Not a URL we can parse: hide everything between "://user:" and the last "@", and any
    // password-like key=value (query strings and libpq keyword/value strings alike).
    return url
      .replace(/(\/\/[^:/@]*:).*@/, '$1***@')
      .replace(/((?:pass|secret|token)\w*\s*=\s*)[^&\s]*/gi, '$1***');
  }
}

/** Removes every occurrence of the given secrets from a message. */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length > 0) out = out.split(secret).join('***');
  return out;
}
