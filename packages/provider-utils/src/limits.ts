import { raceAbort } from "./abort.js";

/** How much of an error response's body is read (64 KiB); the rest is never downloaded. */
export const DEFAULT_MAX_ERROR_BODY_BYTES = 64 * 1024;
/** The largest single Server-Sent Event accepted (16 MiB); a larger one stops the stream. */
export const DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024;
/** The largest 2xx response accepted (64 MiB), streamed or not; a larger one is refused. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** The size caps an adapter reads provider answers with, in bytes. */
export interface SizeLimits {
  maxErrorBodyBytes: number;
  maxEventBytes: number;
  maxResponseBytes: number;
}

/**
 * Validates an adapter's `maxErrorBodyBytes` / `maxEventBytes` / `maxResponseBytes` options and
 * fills in the defaults (64 KiB, 16 MiB, 64 MiB). Throws a TypeError naming the bad option, so a
 * typo fails at construction.
 */
export function limitOptions(
  provider: string,
  options: {
    maxErrorBodyBytes?: number | undefined;
    maxEventBytes?: number | undefined;
    maxResponseBytes?: number | undefined;
  },
): SizeLimits {
  const limits: SizeLimits = {
    maxErrorBodyBytes: options.maxErrorBodyBytes ?? DEFAULT_MAX_ERROR_BODY_BYTES,
    maxEventBytes: options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
  };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new TypeError(
        `${provider}: ${name} must be a whole number of bytes >= 1, got ${value}`,
      );
    }
  }
  return limits;
}

/** A body read up to a cap: its text, and whether bytes were left unread past the cap. */
export interface CappedText {
  text: string;
  truncated: boolean;
}

/**
 * Reads at most `maxBytes` of a response body as UTF-8 and cancels the rest, so a huge body is
 * never held in memory. `truncated` says the body went on past the cap. A body error (the
 * connection dropped) and an abort reject as they would from `response.text()`.
 */
export async function readCapped(
  response: Response,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<CappedText> {
  if (response.body === null) return { text: "", truncated: false };
  const reader = response.body.getReader();
  const decoder = new TextDecoder("utf-8");
  let text = "";
  let size = 0;
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await raceAbort(reader.read(), signal);
      if (done) {
        finished = true;
        return { text: text + decoder.decode(), truncated: false };
      }
      const room = maxBytes - size;
      if (value.byteLength > room) {
        // The cut may split a character: the partial bytes are dropped, not decoded.
        text += decoder.decode(value.subarray(0, room), { stream: true });
        return { text, truncated: true };
      }
      size += value.byteLength;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
