// A connection string's secrets must never reach a terminal, a log or a CI transcript: every
// text the command writes passes through a redactor that knows them, in every spelling a text
// may hold them (as written, percent-encoded, JSON-escaped as `--json` writes them).
import { replaceSecrets, secretSpellings } from "@toolnexus/core";

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
      if (value.startsWith("'")) {
        secrets.add(value.slice(1, -1));
        // The password itself: its quotes' backslash escapes (`\'`, `\\`) undone.
        secrets.add(value.slice(1, -1).replace(/\\(.)/g, "$1"));
      }
    }
  }
  // A secret of one or two characters would mask unrelated text; such a password is kept out
  // of the output by masking the whole connection string, which contains it.
  return [...secrets].filter((secret) => secret.length >= 3).sort((a, b) => b.length - a.length);
}

/**
 * Replaces every secret in `text` with `***`: as written, percent-encoded, and JSON- or
 * HTML-escaped (core's `replaceSecrets`), so a password with a `"` or a `\` is masked in JSON
 * text too. Overlapping ones are masked whole.
 */
export function redactor(secrets: readonly string[]): (text: string) => string {
  if (secrets.length === 0) return (text) => text;
  const spellings = [...new Set(secrets.flatMap((secret) => secretSpellings(secret)))];
  return (text) => replaceSecrets(text, spellings, MASK);
}

/**
 * A copy of `value` with `redact` applied to every string (object keys too), to serialize
 * after: what `--json` prints is redacted before it becomes JSON. Values that are not plain
 * objects or arrays are kept (their JSON text is redacted as a whole afterwards).
 */
export function redactValue<T>(value: T, redact: (text: string) => string): T {
  const walk = (item: unknown): unknown => {
    if (typeof item === "string") return redact(item);
    if (typeof item !== "object" || item === null) return item;
    if (Array.isArray(item)) return item.map(walk);
    const proto = Object.getPrototypeOf(item);
    if (proto !== Object.prototype && proto !== null) return item;
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(item)) out[redact(key)] = walk(child);
    return out;
  };
  return walk(value) as T;
}
