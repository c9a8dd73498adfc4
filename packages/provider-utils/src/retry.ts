import { MAX_TIMER_MS } from "./abort.js";

/** The HTTP statuses retried by default: rate limited and the transient server errors. */
export const RETRY_STATUSES: readonly number[] = [429, 500, 502, 503, 504];

/** Default number of retries after the first attempt. */
export const DEFAULT_RETRIES = 2;

/** Default base of the exponential backoff, in milliseconds. */
export const DEFAULT_RETRY_BASE_MS = 500;

/** The longest backoff step, whatever the attempt number. */
export const MAX_BACKOFF_MS = 60_000;

/**
 * The longest wait before a retry by default, whatever the server asks for: a `Retry-After: 3600`
 * must not stall a run for an hour. Adapters take `maxRetryDelayMs` to change it.
 */
export const DEFAULT_MAX_RETRY_DELAY_MS = 60_000;

/**
 * The largest `maxRetryDelayMs` accepted: 2^31 - 1 ms (about 24.8 days), the longest delay
 * `setTimeout` takes (Node fires a longer one after 1 ms).
 */
export const MAX_RETRY_DELAY_MS = MAX_TIMER_MS;

/**
 * Reads a `retry-after-ms` header (the delay in milliseconds, a fraction allowed, as OpenAI
 * sends it). Anything but a non-negative number gives `undefined`.
 */
export function parseRetryAfterMs(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (!/^\d+(?:\.\d+)?$/.test(trimmed)) return undefined;
  const ms = Number(trimmed);
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * What the server's headers say about retrying: the delay it asks for (`retry-after-ms`, else
 * `Retry-After`), and `x-should-retry` (`true` or `false`; `undefined` when absent or other).
 */
export function retryHints(headers: { get(name: string): string | null }): {
  retryAfterMs: number | undefined;
  shouldRetry: boolean | undefined;
} {
  const retryAfterMs =
    parseRetryAfterMs(headers.get("retry-after-ms")) ?? parseRetryAfter(headers.get("retry-after"));
  const should = headers.get("x-should-retry")?.trim().toLowerCase();
  return {
    retryAfterMs,
    shouldRetry: should === "true" ? true : should === "false" ? false : undefined,
  };
}

/**
 * Reads a `Retry-After` header as whole delay-seconds and returns milliseconds. Only digits are
 * accepted (`"0"` means retry now); an HTTP date, a fraction or anything else gives `undefined`,
 * so the caller falls back to its own backoff.
 */
export function parseRetryAfter(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (!/^\d+$/.test(trimmed)) return undefined;
  const seconds = Number(trimmed);
  return Number.isSafeInteger(seconds) ? seconds * 1000 : undefined;
}

/**
 * The wait before retry number `attempt + 1` (attempt 0 is the wait after the first failure):
 * `baseMs * 2^attempt`, of which the upper half is random jitter, capped at 60 s. `random` is
 * injectable for tests.
 */
export function backoffDelay(
  attempt: number,
  baseMs: number,
  random: () => number = Math.random,
): number {
  const step = Math.min(baseMs * 2 ** attempt, MAX_BACKOFF_MS);
  return Math.round(step / 2 + (step / 2) * random());
}

/**
 * Validates an adapter's `retries` / `retryBaseMs` / `maxRetryDelayMs` options and fills in the
 * defaults (2 retries, 500 ms, 60 s). Throws a TypeError naming the bad option, so a typo fails at
 * construction; `maxRetryDelayMs` may be at most {@link MAX_RETRY_DELAY_MS}.
 */
export function retryOptions(
  provider: string,
  options: {
    retries?: number | undefined;
    retryBaseMs?: number | undefined;
    maxRetryDelayMs?: number | undefined;
  },
): { retries: number; retryBaseMs: number; maxRetryDelayMs: number } {
  const retries = options.retries ?? DEFAULT_RETRIES;
  const retryBaseMs = options.retryBaseMs ?? DEFAULT_RETRY_BASE_MS;
  const maxRetryDelayMs = options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS;
  if (!Number.isInteger(retries) || retries < 0) {
    throw new TypeError(`${provider}: retries must be a whole number >= 0, got ${retries}`);
  }
  if (!Number.isFinite(retryBaseMs) || retryBaseMs < 0) {
    throw new TypeError(`${provider}: retryBaseMs must be a number >= 0, got ${retryBaseMs}`);
  }
  if (
    !Number.isFinite(maxRetryDelayMs) ||
    maxRetryDelayMs < 0 ||
    maxRetryDelayMs > MAX_RETRY_DELAY_MS
  ) {
    throw new TypeError(
      `${provider}: maxRetryDelayMs must be a number from 0 to ${MAX_RETRY_DELAY_MS} (2^31 - 1 ms, about 24.8 days; the longest delay a timer takes), got ${maxRetryDelayMs}`,
    );
  }
  return { retries, retryBaseMs, maxRetryDelayMs };
}
