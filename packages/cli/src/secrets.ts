// A connection string's secrets must never reach a terminal, a log or a CI transcript: every
// text the command writes passes through a redactor that knows them.

const MASK = "***";

/** The secret parts of a PostgreSQL connection string: its password (as written and decoded), and the whole string. */
export function secretsOf(connectionString: string): string[] {
  const secrets = new Set<string>([connectionString]);
  try {
    const url = new URL(connectionString);
    if (url.password !== "") {
      secrets.add(url.password);
      try {
        secrets.add(decodeURIComponent(url.password));
      } catch {
        // a malformed escape: the raw form is already listed
      }
    }
    const fromQuery = url.searchParams.get("password");
    if (fromQuery) secrets.add(fromQuery);
  } catch {
    // A key=value string (`host=… password=…`).
    for (const found of connectionString.matchAll(/password\s*=\s*('(?:[^'\\]|\\.)*'|\S+)/gi)) {
      const value = found[1]!;
      secrets.add(value);
      if (value.startsWith("'")) secrets.add(value.slice(1, -1));
    }
  }
  // A secret of one or two characters would mask unrelated text; such a password is kept out
  // of the output by masking the whole connection string, which contains it.
  return [...secrets].filter((secret) => secret.length >= 3).sort((a, b) => b.length - a.length);
}

/** Replaces every secret in `text` with `***`; longest first, so a longer one is masked whole. */
export function redactor(secrets: readonly string[]): (text: string) => string {
  if (secrets.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const secret of secrets) out = out.split(secret).join(MASK);
    return out;
  };
}
