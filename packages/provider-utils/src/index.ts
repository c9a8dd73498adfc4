export { abortReason, raceAbort, sleep, throwIfAborted } from "./abort.js";
export type { ApiKeySources } from "./api-key.js";
export { resolveApiKey } from "./api-key.js";
export { errorDetails } from "./error-body.js";
export type { ProviderErrorCode, ProviderErrorInit } from "./errors.js";
export {
  BaseUrlCredentialsError,
  MAX_ERROR_FIELD_CHARS,
  MAX_ERROR_MESSAGE_CHARS,
  MissingApiKeyError,
  ProviderError,
} from "./errors.js";
export { mergeHeaders, userAgent } from "./headers.js";
export type { FetchFunction, HttpSettings, PostRequest } from "./http.js";
export {
  parseEventData,
  postForStream,
  postJson,
  streamEvents,
  withRetries,
} from "./http.js";
export type {
  HttpModelCall,
  HttpModelOptions,
  HttpModelSpec,
  StreamMapper,
} from "./http-model.js";
export { defineHttpModel } from "./http-model.js";
export type { CappedText, SizeLimits } from "./limits.js";
export {
  DEFAULT_MAX_ERROR_BODY_BYTES,
  DEFAULT_MAX_EVENT_BYTES,
  DEFAULT_MAX_RESPONSE_BYTES,
  limitOptions,
  readCapped,
} from "./limits.js";
export type { ParseContext } from "./parse.js";
export { asRecord, malformedResponse } from "./parse.js";
export {
  clip,
  credentialValues,
  hasCredentialHeader,
  isCredentialHeader,
  REDACTED,
  redact,
  redactCause,
  redactCut,
} from "./redact.js";
export type { RedirectSettings } from "./redirect.js";
export { DEFAULT_MAX_REDIRECTS, fetchSameOrigin } from "./redirect.js";
export {
  backoffDelay,
  DEFAULT_MAX_RETRY_DELAY_MS,
  DEFAULT_RETRIES,
  DEFAULT_RETRY_BASE_MS,
  MAX_BACKOFF_MS,
  MAX_RETRY_DELAY_MS,
  parseRetryAfter,
  parseRetryAfterMs,
  RETRY_STATUSES,
  retryHints,
  retryOptions,
} from "./retry.js";
export type { SSEEvent } from "./sse.js";
export { readSSE, SSEEventTooLargeError, SSEParser, SSEStreamTooLargeError } from "./sse.js";
export {
  checkBaseUrl,
  isLoopbackUrl,
  joinUrl,
  readEnv,
  refuseUrlCredentials,
  urlPath,
  withoutUserinfo,
} from "./url.js";
export type { UsageCounts } from "./usage.js";
export { tokenCount, usageFromCounts } from "./usage.js";
