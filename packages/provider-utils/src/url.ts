/**
 * Appends `path` to the path of `base`, keeping its query string, so a gateway URL such as
 * `https://host/openai/deployments/x?api-version=2024-10-21` still works. Slashes between the
 * two are normalised.
 */
export function joinUrl(base: string, path: string): string {
  const url = new URL(base);
  const left = url.pathname.replace(/\/+$/, "");
  const right = path.replace(/^\/+/, "");
  url.pathname = `${left}/${right}`;
  return url.toString();
}

import { BaseUrlCredentialsError } from "./errors.js";

/**
 * `text` with anything that looks like `user:password@` before the host removed, so it can be
 * shown in a message. Works on strings that are not valid URLs too.
 */
export function withoutUserinfo(text: string): string {
  const stripped = text.replace(
    /^([a-z][a-z0-9+.-]*:)?(\/\/)?[^/?#\s]*@/i,
    (_all, scheme: string | undefined, slashes: string | undefined) =>
      // "user:pass@host" has no scheme: its "user:" is not kept.
      slashes !== undefined || /^https?:$/i.test(scheme ?? "")
        ? `${scheme ?? ""}${slashes ?? ""}`
        : "",
  );
  // The URL parser's own reading, for forms the pattern misses (e.g. "http:\\\\u:p@host").
  try {
    const url = new URL(stripped);
    if (url.username !== "" || url.password !== "") {
      url.username = "";
      url.password = "";
      return url.toString();
    }
  } catch {
    // Not a URL: the pattern's answer stands.
  }
  return stripped;
}

/**
 * Throws a {@link BaseUrlCredentialsError} when `url` carries a user name or password, without
 * them in the message; returns `url` otherwise. For a base URL read later (an environment
 * variable read at each call) that should still fail at construction when it carries secrets.
 */
export function refuseUrlCredentials(provider: string, name: string, url: string): string {
  const safe = withoutUserinfo(url);
  if (safe !== url) throw new BaseUrlCredentialsError(provider, name, safe);
  return url;
}

/**
 * Checks a base URL at construction, so a mistake fails where it was made and says what to
 * write: it must be an absolute `http://` or `https://` URL. `localhost:8787/v1` (no scheme) is
 * refused with a suggestion such as `"http://localhost:8787/v1"`. `name` is how the caller
 * calls the value in the message, e.g. `"baseUrl"` or `"OPENAI_BASE_URL"`. A URL with a user name
 * or password (`http://user:pass@host`) is a {@link BaseUrlCredentialsError} whose message
 * leaves them out.
 */
export function checkBaseUrl(provider: string, name: string, value: unknown): string {
  const text = typeof value === "string" ? value.trim() : "";
  const safe = refuseUrlCredentials(provider, name, text);
  let protocol: string | undefined;
  try {
    protocol = new URL(text).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol === "http:" || protocol === "https:") return text;
  const bare = safe.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").replace(/^\/+/, "");
  const guess = `${isLoopbackUrl(`http://${bare}`) ? "http" : "https"}://${bare}`;
  const hint = bare !== "" && URL.canParse(guess) ? `, e.g. "${guess}"` : "";
  throw new TypeError(
    `${provider}: "${name}" must be an absolute URL starting with http:// or https://${hint}; got ${typeof value === "string" ? JSON.stringify(safe) : String(value)}`,
  );
}

/** The path of `base` without trailing slashes, e.g. `"/v1"`, or `""` for the root. */
export function urlPath(base: string): string {
  return new URL(base).pathname.replace(/\/+$/, "");
}

/**
 * True when `url` points at this machine (`localhost`, `*.localhost`, `127.0.0.0/8`, `::1`,
 * `0.0.0.0`): a local Ollama, vLLM or llama.cpp server, which usually needs no API key.
 */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (host === "::1" || host === "0.0.0.0") return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Reads an environment variable where there is one (Node, Bun, Deno with env access) and
 * returns `undefined` elsewhere or when it is empty.
 */
export function readEnv(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
    ?.env;
  const value = env?.[name];
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}
