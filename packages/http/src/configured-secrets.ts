// Which values of a declaration are secrets, to be redacted from everything the model reads.
// Besides every `${VAR}` expansion: the literal values it puts where credentials go (headers,
// the URL's userinfo, credential-named query parameters).
import { credentialParts, isCredentialName } from "@toolnexus/core";

/**
 * Headers that describe the request or the client and never carry a credential. Their values
 * ("application/json", "gzip", "en-US") are ordinary words of many bodies: redacting them would
 * mangle results for nothing.
 */
const NOT_SECRET_HEADERS = new Set([
  "accept",
  "accept-charset",
  "accept-encoding",
  "accept-language",
  "cache-control",
  "connection",
  "content-encoding",
  "content-language",
  "content-length",
  "content-type",
  "dnt",
  "expect",
  "if-match",
  "if-modified-since",
  "if-none-match",
  "if-range",
  "if-unmodified-since",
  "origin",
  "pragma",
  "prefer",
  "range",
  "referer",
  "te",
  "user-agent",
  "x-requested-with",
]);
/** API version headers (`X-GitHub-Api-Version`, `Notion-Version`…): dates and numbers. */
const VERSION_HEADER = /-version$/;

/**
 * The shortest literal value of another header treated as a secret when its name does not say
 * it is a credential. Credentials are long random strings; a shorter literal is a setting ("v2",
 * "true", "plain", "no-store"), a word that ordinary output contains. A `${VAR}` expansion or a
 * value under a credential-like name only needs `MIN_REDACTED_LENGTH` (4).
 */
export const MIN_LITERAL_SECRET_LENGTH = 8;

/** The secrets in one header as sent (its `${VAR}`s expanded). */
export function headerSecrets(name: string, value: string): string[] {
  const lower = name.toLowerCase();
  if (NOT_SECRET_HEADERS.has(lower) || VERSION_HEADER.test(lower)) return [];
  // The token alone, so that an echoed `Bearer [redacted]` still tells which scheme failed.
  const parts = credentialParts(value);
  if (parts.length > 0) return parts;
  return isCredentialName(lower) || value.length >= MIN_LITERAL_SECRET_LENGTH ? [value] : [];
}

/** A piece of the URL as written and percent-decoded: the server may echo either. */
function bothForms(piece: string): string[] {
  try {
    return [piece, decodeURIComponent(piece)];
  } catch {
    return [piece];
  }
}

/**
 * The secrets written in a URL template: the password of its userinfo (`https://user:pw@…`,
 * which `fetch` refuses with an error quoting the URL) and the literal values of its
 * credential-named query parameters (`?api_key=…`). A value with a `{placeholder}` is the
 * model's argument, not configuration.
 */
export function urlSecrets(template: string): string[] {
  const secrets: string[] = [];
  const authority = /^[^:]*:\/\/([^/\\?#]*)/.exec(template)?.[1] ?? "";
  const at = authority.lastIndexOf("@");
  const colon = authority.indexOf(":");
  if (at !== -1 && colon !== -1 && colon < at) {
    const password = authority.slice(colon + 1, at);
    if (!password.includes("{")) secrets.push(...bothForms(password));
  }
  const rest = template.slice(template.indexOf("//") + 2 + authority.length).split("#")[0] ?? "";
  const question = rest.indexOf("?");
  if (question === -1) return secrets;
  for (const pair of rest.slice(question + 1).split("&")) {
    const equals = pair.indexOf("=");
    if (equals === -1 || pair.includes("{")) continue;
    const [[key, value] = ["", ""]] = new URLSearchParams(pair);
    // As written, and as decoded by a form decoder (`+` is a space there).
    if (isCredentialName(key)) secrets.push(pair.slice(equals + 1), value);
  }
  return secrets;
}
