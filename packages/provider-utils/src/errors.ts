import { ToolnexusError } from "@toolnexus/core";
import { clip, redact, redactCause } from "./redact.js";

/**
 * What went wrong talking to a provider:
 * - `"provider_http"`: the server answered with a non-2xx status;
 * - `"provider_network"`: no answer (connection refused, reset, dropped mid-body or mid-stream);
 * - `"provider_response"`: a 2xx answer that is not what the API documents (bad JSON, no choices);
 * - `"provider_stream"`: the provider reported an error inside a stream, or the stream ended early;
 * - `"provider_redirect"`: the server redirected to another origin (refused, so no credential
 *   reaches it) or redirected too many times;
 * - `"provider_limit"`: one streamed event or a whole response, streamed or not, is larger than
 *   its cap (`maxEventBytes`, `maxResponseBytes`); reading stopped there.
 */
export type ProviderErrorCode =
  | "provider_http"
  | "provider_network"
  | "provider_response"
  | "provider_stream"
  | "provider_redirect"
  | "provider_limit";

/** The longest `message` / `providerMessage` a {@link ProviderError} keeps, in characters. */
export const MAX_ERROR_MESSAGE_CHARS = 2000;
/** The longest `providerType`, `providerCode`, `requestId` or header value kept, in characters. */
export const MAX_ERROR_FIELD_CHARS = 200;

/** Everything a {@link ProviderError} carries besides its message. */
export interface ProviderErrorInit {
  /** Which adapter failed, e.g. `"openai"`. */
  provider: string;
  /** The HTTP status, when the server answered. */
  status?: number;
  /** The provider's own error message (already stripped of secrets). */
  providerMessage?: string;
  /**
   * The provider's error type, e.g. `"invalid_request_error"` or `"rate_limit_error"` (its
   * `code` when the body has no type).
   */
  providerType?: string;
  /**
   * The provider's own error code, when its error body has one: OpenAI's `error.code`, e.g.
   * `"context_length_exceeded"`, `"invalid_api_key"`, `"rate_limit_exceeded"`. Anthropic sends
   * no code; its kind of error is `providerType`.
   */
  providerCode?: string;
  /** The provider's request id header (`x-request-id`, `request-id`), for support tickets. */
  requestId?: string;
  /**
   * The headers of the error response (names lower-case, credentials redacted from every value,
   * `set-cookie` left out), e.g. `x-ratelimit-remaining-requests` or `anthropic-ratelimit-*`.
   */
  responseHeaders?: Readonly<Record<string, string>>;
  /** True when the same request may succeed if sent again (429, 5xx, network errors). */
  retryable?: boolean;
  /**
   * The delay the server asked for (`retry-after-ms`, else `Retry-After` in whole seconds), in
   * milliseconds, as the server gave it: the adapter itself waits at most `maxRetryDelayMs`.
   */
  retryAfterMs?: number;
  cause?: unknown;
  /**
   * Values that must never appear in the error (the API key, credential header values). They
   * are redacted from the message, from every provider field above and from the cause's message
   * and stack, before anything is cut to its length cap. Not kept on the error.
   */
  secrets?: readonly string[];
}

/**
 * The error every toolnexus model adapter throws when a provider call fails (an abort rejects
 * with the signal's reason instead). Catch it to tell a rate limit (`status === 429`) from a bad
 * request or an outage; `retryable` says whether trying again later could help, and
 * `providerCode` tells one bad request from another (`"context_length_exceeded"`). Its message and
 * fields never contain the API key or other credential headers.
 */
export class ProviderError extends ToolnexusError {
  override readonly code: ProviderErrorCode;
  readonly provider: string;
  readonly status: number | undefined;
  readonly providerMessage: string | undefined;
  readonly providerType: string | undefined;
  readonly providerCode: string | undefined;
  readonly requestId: string | undefined;
  readonly responseHeaders: Readonly<Record<string, string>> | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;

  /**
   * This is the one place where provider text becomes ours: every string that came from the
   * provider (the message built from it, `providerMessage`, `providerType`, `providerCode`,
   * `requestId`, header values, the cause) has `init.secrets` redacted first and is then cut to
   * {@link MAX_ERROR_MESSAGE_CHARS} / {@link MAX_ERROR_FIELD_CHARS}, so a cut never splits a
   * secret into an unredacted part.
   */
  constructor(code: ProviderErrorCode, message: string, init: ProviderErrorInit) {
    const secrets = init.secrets ?? [];
    const long = (text: string) => clip(redact(text, secrets), MAX_ERROR_MESSAGE_CHARS);
    const short = (text: string | undefined) =>
      text === undefined ? undefined : clip(redact(text, secrets), MAX_ERROR_FIELD_CHARS);
    const cause = init.cause === undefined ? undefined : redactCause(init.cause, secrets);
    super(code, long(message), cause === undefined ? undefined : { cause });
    this.code = code;
    this.provider = init.provider;
    this.status = init.status;
    this.providerMessage =
      init.providerMessage === undefined ? undefined : long(init.providerMessage);
    this.providerType = short(init.providerType);
    this.providerCode = short(init.providerCode);
    this.requestId = short(init.requestId);
    this.responseHeaders =
      init.responseHeaders === undefined ? undefined : keptHeaders(init.responseHeaders, secrets);
    this.retryable = init.retryable ?? false;
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** Header values redacted and cut, names lower-case, `set-cookie` left out. */
function keptHeaders(
  headers: Readonly<Record<string, string>>,
  secrets: readonly string[],
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === "set-cookie") continue;
    kept[redact(lower, secrets)] = clip(redact(String(value), secrets), MAX_ERROR_FIELD_CHARS * 5);
  }
  return kept;
}

/**
 * Thrown at the first model call when no API key was given and none of the environment
 * variables it falls back to is set. The message names those variables.
 */
export class MissingApiKeyError extends ToolnexusError {
  readonly provider: string;
  /** The environment variables that were looked at, in order. */
  readonly variables: readonly string[];

  /**
   * @param detail A sentence added to the message, e.g. why a variable that is set was not
   *   used (`"OPENROUTER_API_KEY is set but is only sent to openrouter.ai"`).
   */
  constructor(provider: string, variables: readonly string[], detail?: string) {
    const names = variables.join(" or ");
    super(
      "missing_api_key",
      `${provider}: no API key: pass { apiKey } or set ${names} (a baseUrl on localhost needs none)${detail ? `. ${detail}` : ""}`,
    );
    this.provider = provider;
    this.variables = variables;
  }
}

/**
 * Thrown at construction when a base URL (the `baseUrl` option or a variable such as
 * `OPENAI_BASE_URL`) carries a user name or password (`http://user:pass@host`). `fetch` refuses
 * such URLs at every call, and the credentials would show in errors and logs; send them as the
 * API key or a header instead. The message names the setting, never the credentials.
 */
export class BaseUrlCredentialsError extends ToolnexusError {
  override readonly code = "base_url_credentials";
  readonly provider: string;
  /** The option or environment variable the URL came from, e.g. `"baseUrl"`, `"OPENAI_BASE_URL"`. */
  readonly setting: string;

  constructor(provider: string, setting: string, safeUrl: string) {
    super(
      "base_url_credentials",
      `${provider}: "${setting}" must not contain a user name or password (${safeUrl} with credentials before the host); pass the key as apiKey or in headers instead`,
    );
    this.provider = provider;
    this.setting = setting;
  }
}
