import {
  credentialParts,
  isCredentialName,
  replaceSecrets,
  secretSpellings,
  secretStartAtEnd,
} from "@toolnexus/core";

/** What a secret is replaced with by {@link redact}. */
export const REDACTED = "[redacted]";

/** Header names whose values are credentials (compared case-insensitively). */
const CREDENTIAL_HEADERS = new Set([
  "authorization",
  "proxy-authorization",
  "api-key",
  "x-api-key",
  "x-goog-api-key",
  "cookie",
]);

/**
 * Replaces every occurrence of each secret in `text` with `[redacted]`. Use it on anything that
 * may echo a request back (error bodies, stream payloads) before it reaches a message or a log.
 * Also hides the bare token of a `Bearer <token>` secret (and a `Basic` one's decoded
 * `user:password` and password), and a secret written with JSON escapes
 * (`\u0073k-...`, `sk-a\/b`, escaped twice for JSON inside a JSON string). Secrets shorter than
 * 4 characters are ignored, so a one-letter key cannot shred every message.
 */
export function redact(text: string, secrets: readonly string[]): string {
  return replaceSecrets(text, expandSecrets(secrets), REDACTED);
}

/**
 * Like {@link redact}, for text that was cut off at its end (a body read up to a size cap): a
 * secret straddling the cut left only its start, which `redact` cannot recognise, so a tail that
 * is the start of a secret is redacted too. The longest such start over all secrets is the one
 * cut (a short secret may match more of the tail than a long one), escaped spellings included.
 */
export function redactCut(text: string, secrets: readonly string[]): string {
  const all = expandSecrets(secrets);
  const out = replaceSecrets(text, all, REDACTED);
  const at = secretStartAtEnd(out, all);
  return at === -1 ? out : `${out.slice(0, at)}${REDACTED}`;
}

/** `text` cut to `max` characters (an ellipsis marks the cut). Redact before you clip. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * The cause to keep on an error: `cause` itself when no secret appears in its message, stack or
 * its own causes, else a plain `Error` of the same name with the secrets redacted (an `Error`'s
 * stack is fixed when it is made, so the original cannot be cleaned in place).
 */
export function redactCause(cause: unknown, secrets: readonly string[], depth = 0): unknown {
  if (expandSecrets(secrets).length === 0) return cause;
  if (!(cause instanceof Error)) {
    return typeof cause === "string" ? redact(cause, secrets) : cause;
  }
  const inner = (cause as { cause?: unknown }).cause;
  const cleanInner =
    inner === undefined || depth > 4 ? inner : redactCause(inner, secrets, depth + 1);
  const dirty = (text: string | undefined) => text !== undefined && redact(text, secrets) !== text;
  if (!dirty(cause.message) && !dirty(cause.stack) && cleanInner === inner) return cause;
  const copy = new Error(
    redact(cause.message, secrets),
    cleanInner === undefined ? undefined : { cause: cleanInner },
  );
  copy.name = cause.name;
  copy.stack = redact(cause.stack ?? "", secrets);
  return copy;
}

function expandSecrets(secrets: readonly string[]): string[] {
  const all = new Set<string>();
  for (const secret of secrets) {
    const trimmed = secret.trim();
    if (trimmed.length >= 4) for (const spelling of secretSpellings(trimmed)) all.add(spelling);
    // The bare token of `Bearer <token>`, a Basic credential's user:password and password.
    for (const part of credentialParts(trimmed)) {
      if (part.length >= 4) for (const spelling of secretSpellings(part)) all.add(spelling);
    }
  }
  return [...all];
}

/**
 * The values of credential headers in `headers` (see {@link isCredentialHeader}), to pass to
 * {@link redact} alongside the API key.
 */
export function credentialValues(headers: Readonly<Record<string, string>>): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (isCredentialHeader(name)) values.push(value);
  }
  return values;
}

/**
 * True for a header whose value is a credential: the well-known ones (`authorization`,
 * `x-api-key`, `api-key`, `x-goog-api-key`, `cookie`...) and any name that says so, such as a
 * gateway's own `x-portkey-api-key`, `helicone-auth` or `x-session-token`.
 */
export function isCredentialHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return CREDENTIAL_HEADERS.has(lower) || isCredentialName(lower);
}

const AUTH_HEADERS = new Set(["authorization", "api-key", "x-api-key"]);

/**
 * True when `headers` already carries an authentication header (`authorization`, `api-key`,
 * `x-api-key`), so the adapter needs no API key of its own (e.g. an Azure-style gateway).
 */
export function hasCredentialHeader(headers: Readonly<Record<string, string>>): boolean {
  return Object.entries(headers).some(
    ([name, value]) => AUTH_HEADERS.has(name.toLowerCase()) && value.trim() !== "",
  );
}
