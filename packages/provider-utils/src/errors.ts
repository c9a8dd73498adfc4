import { ToolnexusError } from "@toolnexus/core";

/**
 * What went wrong talking to a provider:
 * - `"provider_http"`: the server answered with a non-2xx status;
 * - `"provider_network"`: no answer (connection refused, reset, dropped mid-body or mid-stream);
 * - `"provider_response"`: a 2xx answer that is not what the API documents (bad JSON, no choices);
 * - `"provider_stream"`: the provider reported an error inside a stream, or the stream ended early.
 */
export type ProviderErrorCode =
  | "provider_http"
  | "provider_network"
  | "provider_response"
  | "provider_stream";

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

  constructor(code: ProviderErrorCode, message: string, init: ProviderErrorInit) {
    super(code, message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = code;
    this.provider = init.provider;
    this.status = init.status;
    this.providerMessage = init.providerMessage;
    this.providerType = init.providerType;
    this.providerCode = init.providerCode;
    this.requestId = init.requestId;
    this.responseHeaders = init.responseHeaders;
    this.retryable = init.retryable ?? false;
    this.retryAfterMs = init.retryAfterMs;
  }
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
