import {
  asRecord,
  DEFAULT_MAX_ERROR_BODY_BYTES,
  type FetchFunction,
  readCapped,
  redactCut,
} from "@toolnexus/provider-utils";
import { errorReason } from "./response.js";

/**
 * Wraps `fetch` so Google's error answers read like the others to the shared HTTP layer of
 * `@toolnexus/provider-utils`: a non-2xx body `{ error: { code, message, status, details } }`
 * (or that object in a one-element array, as `streamGenerateContent` without SSE sends it) is
 * handed on as `{ error: { message, type: status, code: reason ?? status } }`, so a
 * `ProviderError` has `providerType` `"INVALID_ARGUMENT"`, `"RESOURCE_EXHAUSTED"`… and
 * `providerCode` the `ErrorInfo` reason (`"API_KEY_INVALID"`) or the status. The delay of a
 * `google.rpc.RetryInfo` detail (`"retryDelay": "34.4s"`) becomes a `retry-after-ms` header when
 * the response has no retry header of its own, so the retry waits what the server asked (capped
 * by `maxRetryDelayMs`). Only the first `maxErrorBodyBytes` of an error body are read (a body
 * cut there is handed on with any start of a `secrets` value at its end redacted). Any other response, a redirect included, passes through
 * untouched.
 */
export function googleErrors(
  fetchFunction: FetchFunction | undefined,
  maxErrorBodyBytes = DEFAULT_MAX_ERROR_BODY_BYTES,
  secrets: readonly string[] = [],
): FetchFunction {
  return async (input, init) => {
    const response = await (fetchFunction ?? globalThis.fetch)(input, init);
    if (response.status < 400) return response;
    const read = await readCapped(response, maxErrorBodyBytes, init.signal ?? undefined);
    // A key cut in two by the cap would leave its start at the end, unrecognisable later.
    const text = read.truncated ? redactCut(read.text, secrets) : read.text;
    const normalized = normalize(text);
    const headers = new Headers(response.headers);
    if (
      normalized?.retryAfterMs !== undefined &&
      !headers.has("retry-after") &&
      !headers.has("retry-after-ms")
    ) {
      headers.set("retry-after-ms", String(normalized.retryAfterMs));
    }
    return new Response(normalized === undefined ? text : JSON.stringify(normalized.body), {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  };
}

function normalize(text: string): { body: unknown; retryAfterMs: number | undefined } | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const record = asRecord(Array.isArray(json) && json.length === 1 ? json[0] : json);
  const error = asRecord(record?.error);
  if (error === undefined || typeof error.message !== "string") return undefined;
  const status = typeof error.status === "string" && error.status !== "" ? error.status : undefined;
  const code = errorReason(error) ?? status;
  return {
    body: {
      error: {
        message: error.message,
        ...(status === undefined ? {} : { type: status }),
        ...(code === undefined ? {} : { code }),
      },
    },
    retryAfterMs: retryDelayMs(error),
  };
}

/** The `retryDelay` of a `google.rpc.RetryInfo` detail (`"34.4s"`) in ms. */
function retryDelayMs(error: Record<string, unknown>): number | undefined {
  const details = Array.isArray(error.details) ? error.details : [];
  for (const item of details) {
    const delay = asRecord(item)?.retryDelay;
    if (typeof delay === "string") {
      const match = /^(\d+(?:\.\d+)?)s$/.exec(delay.trim());
      if (match !== null) return Math.round(Number(match[1]) * 1000);
    }
  }
  return undefined;
}
