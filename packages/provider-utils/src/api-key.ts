import { MissingApiKeyError } from "./errors.js";
import { hasCredentialHeader } from "./redact.js";
import { isLoopbackUrl, readEnv } from "./url.js";

/** Where an adapter's API key may come from, for {@link resolveApiKey}. */
export interface ApiKeySources {
  /** The adapter's name, as in the {@link MissingApiKeyError}. */
  provider: string;
  /** The `apiKey` option; used whenever it is a non-empty string. */
  given: string | undefined;
  /** The environment variables read at each call, the first one set wins. */
  env: readonly string[];
  /** The request's headers: a credential there of the caller's own means no key is sent. */
  headers: Readonly<Record<string, string>>;
  /**
   * Header names that carry the key for this provider besides `authorization`, `api-key` and
   * `x-api-key` (e.g. `x-goog-api-key`).
   */
  keyHeaders?: readonly string[] | undefined;
  /** The base URL of the call: one on loopback needs no key. */
  baseUrl: string;
}

/**
 * The API key to send, or `undefined` when none should be: the `apiKey` option, else none when
 * the caller's headers carry their own credential, else the first environment variable set,
 * else none for a loopback base URL (a local server). Otherwise a {@link MissingApiKeyError}
 * naming the variables to set. Read at each call, so a key set after construction is used.
 */
export function resolveApiKey(sources: ApiKeySources): string | undefined {
  const { given, headers } = sources;
  if (given !== undefined && given !== "") return given;
  const own = sources.keyHeaders ?? [];
  const ownKey = Object.entries(headers).some(
    ([name, value]) => own.includes(name.toLowerCase()) && value.trim() !== "",
  );
  if (ownKey || hasCredentialHeader(headers)) return undefined;
  for (const variable of sources.env) {
    const key = readEnv(variable);
    if (key !== undefined) return key;
  }
  if (isLoopbackUrl(sources.baseUrl)) return undefined;
  throw new MissingApiKeyError(sources.provider, [...sources.env]);
}
