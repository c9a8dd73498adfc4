export { abortReason, raceAbort, sleep, throwIfAborted } from "./abort.js";
export type { ProviderErrorCode, ProviderErrorInit } from "./errors.js";
export { MissingApiKeyError, ProviderError } from "./errors.js";
export { mergeHeaders, userAgent } from "./headers.js";
export type { FetchFunction, HttpSettings, PostRequest } from "./http.js";
export {
  asRecord,
  errorDetails,
  parseEventData,
  postForStream,
  postJson,
  streamEvents,
  withRetries,
} from "./http.js";
export { credentialValues, hasCredentialHeader, REDACTED, redact } from "./redact.js";
export {
  backoffDelay,
  DEFAULT_MAX_RETRY_DELAY_MS,
  DEFAULT_RETRIES,
  DEFAULT_RETRY_BASE_MS,
  MAX_BACKOFF_MS,
  parseRetryAfter,
  parseRetryAfterMs,
  RETRY_STATUSES,
  retryHints,
  retryOptions,
} from "./retry.js";
export type { SSEEvent } from "./sse.js";
export { readSSE, SSEParser } from "./sse.js";
export { checkBaseUrl, isLoopbackUrl, joinUrl, readEnv, urlPath } from "./url.js";
export type { UsageCounts } from "./usage.js";
export { tokenCount, usageFromCounts } from "./usage.js";
