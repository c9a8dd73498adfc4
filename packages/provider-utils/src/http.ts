import { abortReason, raceAbort, sleep, throwIfAborted } from "./abort.js";
import { errorDetails, snippet } from "./error-body.js";
import { ProviderError } from "./errors.js";
import {
  DEFAULT_MAX_ERROR_BODY_BYTES,
  DEFAULT_MAX_EVENT_BYTES,
  DEFAULT_MAX_RESPONSE_BYTES,
  readCapped,
} from "./limits.js";
import { redact, redactCut } from "./redact.js";
import { fetchSameOrigin } from "./redirect.js";
import { backoffDelay, DEFAULT_MAX_RETRY_DELAY_MS, RETRY_STATUSES, retryHints } from "./retry.js";
import {
  readSSEBatches,
  type SSEEvent,
  SSEEventTooLargeError,
  SSEStreamTooLargeError,
} from "./sse.js";

/**
 * The `fetch` an adapter calls. `globalThis.fetch` fits, and so does any wrapper (a proxy
 * agent, a recorder in tests, a platform's own fetch).
 */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/** How an adapter talks HTTP: who it is, how it retries and which secrets to keep out of errors. */
export interface HttpSettings {
  /** The adapter's name, used in error messages, e.g. `"openai"`. */
  provider: string;
  /** Defaults to `globalThis.fetch`. */
  fetch?: FetchFunction | undefined;
  /** Retries after the first attempt. */
  retries: number;
  /** Base of the exponential backoff, in milliseconds. */
  retryBaseMs: number;
  /**
   * The longest wait before a retry, whatever the server asks for in `retry-after-ms` or
   * `Retry-After`; defaults to {@link DEFAULT_MAX_RETRY_DELAY_MS} (60 s).
   */
  maxRetryDelayMs?: number | undefined;
  /**
   * Statuses worth retrying; defaults to {@link RETRY_STATUSES}. A response's
   * `x-should-retry: true` / `false` header overrides this list for that response.
   */
  retryStatuses?: readonly number[] | undefined;
  /** Values that must never appear in an error (the API key, credential headers). */
  secrets: readonly string[];
  /**
   * How much of an error response's body is read, in bytes; the rest is never downloaded.
   * Default {@link DEFAULT_MAX_ERROR_BODY_BYTES} (64 KiB).
   */
  maxErrorBodyBytes?: number | undefined;
  /**
   * The largest single streamed event, in bytes; a larger one is a `"provider_limit"` error
   * and reading stops there. Default {@link DEFAULT_MAX_EVENT_BYTES} (16 MiB).
   */
  maxEventBytes?: number | undefined;
  /**
   * The largest 2xx response, in bytes: a non-streamed body, or every byte of a stream read by
   * {@link streamEvents} in all. A larger one is a `"provider_limit"` error and reading stops
   * there. Default {@link DEFAULT_MAX_RESPONSE_BYTES} (64 MiB).
   */
  maxResponseBytes?: number | undefined;
  /** Same-origin redirects followed per request; default 5. Other origins are always refused. */
  maxRedirects?: number | undefined;
  /** Jitter source, injectable for tests. */
  random?: (() => number) | undefined;
}

/** One JSON POST. */
export interface PostRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal?: AbortSignal | undefined;
}

/**
 * POSTs JSON and returns the parsed JSON answer, retrying 429, 5xx and network failures (a body
 * cut off mid-way included) with exponential backoff, or after the delay the server asks for
 * (`retry-after-ms`, else `Retry-After` in whole seconds), never longer than `maxRetryDelayMs`.
 * `x-should-retry: false` on a response means it is not retried; `true` means it is, whatever its
 * status. An abort rejects at once with the signal's reason and is never retried. Any other
 * failure is a {@link ProviderError}.
 */
export async function postJson(request: PostRequest, settings: HttpSettings): Promise<unknown> {
  return withRetries(request.signal, settings, async () => {
    const response = await send(request, settings);
    const text = await readBody(response, request.signal, settings);
    return parseJson(text, response, settings);
  });
}

/**
 * POSTs JSON for a streamed answer and returns the response once its status is 2xx, with the
 * same retry rules as {@link postJson} up to that point. Once the stream has started nothing is
 * retried (its parts may already have been shown); read it with {@link streamEvents}.
 */
export async function postForStream(
  request: PostRequest,
  settings: HttpSettings,
): Promise<Response> {
  return withRetries(request.signal, settings, async () => {
    const response = await send(request, settings);
    if (response.body === null) {
      throw new ProviderError(
        "provider_response",
        `${settings.provider}: the streamed response has no body`,
        { provider: settings.provider, status: response.status },
      );
    }
    return response;
  });
}

/**
 * The Server-Sent Events of a streamed response. A connection that breaks mid-stream becomes a
 * {@link ProviderError} with code `"provider_network"`; an abort rejects with the signal's
 * reason. One event past `maxEventBytes`, or the stream past `maxResponseBytes` in all, is a
 * `"provider_limit"` error and the body is cancelled. Breaking out of the loop cancels it too.
 */
export async function* streamEvents(
  response: Response,
  signal: AbortSignal | undefined,
  settings: StreamEventSettings,
): AsyncGenerator<SSEEvent> {
  for await (const batch of streamEventBatches(response, signal, settings)) yield* batch;
}

/** What {@link streamEvents} needs of a call's settings. */
export type StreamEventSettings = Pick<HttpSettings, "provider"> &
  Partial<Pick<HttpSettings, "secrets" | "maxEventBytes" | "maxResponseBytes">>;

/**
 * {@link streamEvents}, as the batches of events each chunk of the body completed (see
 * `readSSEBatches`): the same errors, one iteration step per chunk rather than per event.
 */
export async function* streamEventBatches(
  response: Response,
  signal: AbortSignal | undefined,
  settings: StreamEventSettings,
): AsyncGenerator<SSEEvent[]> {
  if (response.body === null) return;
  const { provider, secrets = [] } = settings;
  const maxEventBytes = settings.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  // The whole answer is capped as a non-streamed one is: many small events add up the same.
  const maxStreamBytes = settings.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  try {
    yield* readSSEBatches(response.body, { signal, maxEventBytes, maxStreamBytes });
  } catch (thrown) {
    if (signal?.aborted) throw abortReason(signal);
    if (thrown instanceof SSEEventTooLargeError) {
      throw new ProviderError(
        "provider_limit",
        `${provider}: a streamed event is larger than maxEventBytes (${maxEventBytes} bytes); the stream was stopped there. Raise maxEventBytes if such events are expected`,
        { provider, status: response.status, secrets },
      );
    }
    if (thrown instanceof SSEStreamTooLargeError) {
      throw new ProviderError(
        "provider_limit",
        `${provider}: the streamed response is larger than maxResponseBytes (${maxStreamBytes} bytes); the stream was stopped there. Raise maxResponseBytes if such answers are expected`,
        { provider, status: response.status, secrets },
      );
    }
    throw new ProviderError(
      "provider_network",
      `${provider}: the connection was lost while streaming (${describe(thrown)})`,
      { provider, status: response.status, cause: thrown, secrets },
    );
  }
}

/**
 * Runs `attempt` until it succeeds, it throws something not retryable, or the retries run out.
 * Only a {@link ProviderError} with `retryable: true` is retried, after its `retryAfterMs` or the
 * backoff, either capped at `maxRetryDelayMs`.
 */
export async function withRetries<T>(
  signal: AbortSignal | undefined,
  settings: HttpSettings,
  attempt: () => Promise<T>,
): Promise<T> {
  for (let n = 0; ; n++) {
    throwIfAborted(signal);
    try {
      return await attempt();
    } catch (thrown) {
      if (signal?.aborted) throw abortReason(signal);
      if (!(thrown instanceof ProviderError) || !thrown.retryable || n >= settings.retries) {
        throw thrown;
      }
      const wanted = thrown.retryAfterMs ?? backoffDelay(n, settings.retryBaseMs, settings.random);
      await sleep(Math.min(wanted, settings.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS), signal);
    }
  }
}

async function send(request: PostRequest, settings: HttpSettings): Promise<Response> {
  const { provider } = settings;
  const doFetch: FetchFunction = settings.fetch ?? globalThis.fetch;
  let response: Response;
  try {
    const init: RequestInit = {
      method: "POST",
      headers: request.headers,
      body: JSON.stringify(request.body),
    };
    if (request.signal !== undefined) init.signal = request.signal;
    response = await raceAbort(
      fetchSameOrigin(doFetch, request.url, init, settings),
      request.signal,
    );
  } catch (thrown) {
    if (request.signal?.aborted) throw abortReason(request.signal);
    if (thrown instanceof ProviderError) throw thrown;
    throw new ProviderError("provider_network", `${provider}: network error: ${describe(thrown)}`, {
      provider,
      retryable: true,
      cause: thrown,
      secrets: settings.secrets,
    });
  }
  if (response.ok) return response;

  const statuses = settings.retryStatuses ?? RETRY_STATUSES;
  let text = "";
  try {
    const maxBytes = settings.maxErrorBodyBytes ?? DEFAULT_MAX_ERROR_BODY_BYTES;
    const read = await readCapped(response, maxBytes, request.signal);
    // A key cut in two by the cap leaves its start at the end: redacted too.
    text = read.truncated ? redactCut(read.text, settings.secrets) : read.text;
  } catch {
    if (request.signal?.aborted) throw abortReason(request.signal);
  }
  // The key is redacted before anything is cut to a snippet, or a key straddling the cut
  // would survive in part (ProviderError redacts every field again, after JSON unescaping).
  const details = errorDetails(text, settings.secrets);
  const providerMessage = details.message;
  const { retryAfterMs, shouldRetry } = retryHints(response.headers);
  const summary = providerMessage ?? (response.statusText || "no error message");
  const headers = keptHeaders(response.headers, settings.secrets);
  const init: ConstructorParameters<typeof ProviderError>[2] = {
    provider,
    status: response.status,
    retryable: shouldRetry ?? statuses.includes(response.status),
    responseHeaders: headers,
    secrets: settings.secrets,
  };
  if (providerMessage !== undefined) init.providerMessage = providerMessage;
  if (details.type !== undefined) init.providerType = details.type;
  if (details.code !== undefined) init.providerCode = details.code;
  const requestId = headers["x-request-id"] ?? headers["request-id"];
  if (requestId !== undefined) init.requestId = requestId;
  if (retryAfterMs !== undefined) init.retryAfterMs = retryAfterMs;
  throw new ProviderError(
    "provider_http",
    `${provider}: HTTP ${response.status}: ${summary}`,
    init,
  );
}

/**
 * The response headers an error keeps: every one but `set-cookie`, each value with the secrets
 * redacted (a server may echo the key in any header, `x-request-id` included).
 */
function keptHeaders(headers: Headers, secrets: readonly string[]): Record<string, string> {
  const kept: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (name.toLowerCase() !== "set-cookie") kept[name.toLowerCase()] = redact(value, secrets);
  });
  return kept;
}

async function readBody(
  response: Response,
  signal: AbortSignal | undefined,
  settings: HttpSettings,
): Promise<string> {
  const { provider, secrets } = settings;
  const maxBytes = settings.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  let read: { text: string; truncated: boolean };
  try {
    read = await readCapped(response, maxBytes, signal);
  } catch (thrown) {
    if (signal?.aborted) throw abortReason(signal);
    throw new ProviderError(
      "provider_network",
      `${provider}: the connection was lost while reading the response (${describe(thrown)})`,
      { provider, status: response.status, retryable: true, cause: thrown, secrets },
    );
  }
  if (read.truncated) {
    throw new ProviderError(
      "provider_limit",
      `${provider}: the response is larger than maxResponseBytes (${maxBytes} bytes); reading stopped there. Raise maxResponseBytes if such answers are expected`,
      { provider, status: response.status, secrets },
    );
  }
  return read.text;
}

function parseJson(text: string, response: Response, settings: HttpSettings): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // The parser's own message quotes the body around the fault, cut where it likes (maybe
    // inside a key), so it is neither quoted nor kept as the cause.
    throw new ProviderError(
      "provider_response",
      `${settings.provider}: the response is not valid JSON: ${snippet(redact(text, settings.secrets))}`,
      { provider: settings.provider, status: response.status, secrets: settings.secrets },
    );
  }
}

/**
 * Parses the JSON data of one streamed event. Malformed data is a {@link ProviderError} with
 * code `"provider_response"` that quotes the start of the data (never a secret).
 */
export function parseEventData(
  event: SSEEvent,
  settings: Pick<HttpSettings, "provider" | "secrets">,
): unknown {
  try {
    return JSON.parse(event.data);
  } catch {
    // As in parseJson: the parser's message quotes the data cut anywhere, so it is not used.
    throw new ProviderError(
      "provider_response",
      `${settings.provider}: a streamed event is not valid JSON: ${snippet(redact(event.data, settings.secrets))}`,
      { provider: settings.provider, secrets: settings.secrets },
    );
  }
}

function describe(thrown: unknown): string {
  if (thrown instanceof Error) {
    const cause = (thrown as { cause?: unknown }).cause;
    const inner = cause instanceof Error ? cause.message : undefined;
    return inner !== undefined && inner !== thrown.message
      ? `${thrown.message}: ${inner}`
      : thrown.message;
  }
  return String(thrown);
}
