// What a configured credential looks like from the outside, for everyone who redacts one: names
// that say a value is a credential, and the parts of an authorization value a server may echo
// on their own (the bare token, a Basic credential's decoded `user:password`). Shared so that
// provider errors and the HTTP tool recognise the same things.

/**
 * True for a header or query parameter name that says its value is a credential: any name with
 * `auth`, `key`, `token`, `secret`, `passw`, `pwd`, `cookie`, `session`, `signature` or
 * `credential` in it (`Authorization`, `x-api-key`, `x-portkey-api-key`, `helicone-auth`,
 * `api_key`, `db_pwd`…), compared case-insensitively.
 */
export function isCredentialName(name: string): boolean {
  return CREDENTIAL_NAME.test(name);
}

const CREDENTIAL_NAME = /auth|key|token|secret|passw|pwd|cookie|session|signature|credential/i;

/** `Bearer <token>`, `Basic <base64>`, `token <token>` (GitHub's scheme). */
const SCHEME = /^(bearer|basic|token)\s+(\S(?:[\s\S]*\S)?)\s*$/i;

/**
 * The parts of an authorization value that a server may echo apart from the whole: for
 * `Bearer <token>` and `token <token>`, the token; for `Basic <base64>`, the base64 text and,
 * when it decodes (UTF-8) to `user:password`, that pair and the password. Empty for a value
 * with no such scheme. Redact these as well as the whole value, so that an echoed
 * `Bearer [redacted]` still tells which scheme failed.
 */
export function credentialParts(value: string): string[] {
  const scheme = SCHEME.exec(value.trim());
  if (scheme === null) return [];
  const token = scheme[2] as string;
  return scheme[1]?.toLowerCase() === "basic" ? [token, ...basicParts(token)] : [token];
}

/** `user:password` and `password` from a Basic credential, when it decodes to one. */
function basicParts(token: string): string[] {
  try {
    const bytes = Uint8Array.from(atob(token), (char) => char.charCodeAt(0));
    const decoded = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    const colon = decoded.indexOf(":");
    return colon === -1 ? [] : [decoded, decoded.slice(colon + 1)];
  } catch {
    return [];
  }
}
