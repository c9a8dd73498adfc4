/** The HTTP statuses retried by default: rate limited and the transient server errors. */
export const RETRY_STATUSES: readonly number[] = [429, 500, 502, 503, 504];

/** Default number of retries after the first attempt. */
export const DEFAULT_RETRIES = 2;

/** Default base of the exponential backoff, in milliseconds. */
export const DEFAULT_RETRY_BASE_MS = 500;

/** The longest backoff step, whatever the attempt number. */
export const MAX_BACKOFF_MS = 60_000;

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
 * Validates an adapter's `retries` / `retryBaseMs` options and fills in the defaults (2 retries,
 * 500 ms). Throws a TypeError naming the bad option, so a typo fails at construction.
 */
export function retryOptions(
  provider: string,
  options: { retries?: number | undefined; retryBaseMs?: number | undefined },
): { retries: number; retryBaseMs: number } {
  const retries = options.retries ?? DEFAULT_RETRIES;
  const retryBaseMs = options.retryBaseMs ?? DEFAULT_RETRY_BASE_MS;
  if (!Number.isInteger(retries) || retries < 0) {
    throw new TypeError(`${provider}: retries must be a whole number >= 0, got ${retries}`);
  }
  if (!Number.isFinite(retryBaseMs) || retryBaseMs < 0) {
    throw new TypeError(`${provider}: retryBaseMs must be a number >= 0, got ${retryBaseMs}`);
  }
  return { retries, retryBaseMs };
}
