// The fetch of a remote server's transport, with its responses' size capped. The SDK reads a
// JSON body whole (`response.json()`), an error body whole (`response.text()`) and an SSE
// stream for as long as it lasts, with no limit: a server could make us hold any amount. Each
// body is handed on as a stream that stops at the limits instead (the rest is never read).
import { type FetchLike, INTERNAL_ERROR } from "@modelcontextprotocol/client";
import { McpResponseTooLargeError } from "./errors.js";
import { ERROR_BODY_BYTES, type McpLimits } from "./limits.js";
import { SseMeter } from "./sse-meter.js";

/** Statuses whose response cannot have a body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

const encoder = new TextEncoder();

type Bytes = Uint8Array<ArrayBuffer>;

/** `base` (default: the global fetch) with every response body capped by `limits`. */
export function cappedFetch(
  limits: Pick<McpLimits, "maxMessageBytes" | "maxStreamBytes">,
  base?: FetchLike,
): FetchLike {
  return async (url, init) => {
    const response = await (base ?? fetch)(url, init);
    const { body, status } = response;
    if (body === null || status < 200 || status > 599 || NULL_BODY.has(status)) return response;
    let capped: ReadableStream<Bytes>;
    if (!response.ok) {
      capped = body.pipeThrough(cutAt(Math.min(ERROR_BODY_BYTES, limits.maxMessageBytes)));
    } else if (isEventStream(response)) {
      capped = body.pipeThrough(meterEvents(limits, init?.body));
    } else {
      capped = body.pipeThrough(failPast(limits.maxMessageBytes));
    }
    return rewrap(response, capped);
  };
}

function isEventStream(response: Response): boolean {
  const type = response.headers.get("content-type") ?? "";
  return type.split(";")[0]!.trim().toLowerCase() === "text/event-stream";
}

/** A 2xx body (JSON): past `max` bytes, reading it fails with the typed error. */
function failPast(max: number): TransformStream<Bytes, Bytes> {
  let size = 0;
  return new TransformStream({
    transform(chunk, controller) {
      size += chunk.byteLength;
      if (size > max) {
        controller.error(new McpResponseTooLargeError("maxMessageBytes", max, "response body"));
        return;
      }
      controller.enqueue(chunk);
    },
  });
}

/**
 * An error body: the SDK only quotes it in its error (and swallows a failure to read it), so it
 * is cut at `max` bytes with a note rather than failed.
 */
function cutAt(max: number): TransformStream<Bytes, Bytes> {
  let size = 0;
  return new TransformStream({
    transform(chunk, controller) {
      const room = max - size;
      if (chunk.byteLength <= room) {
        size += chunk.byteLength;
        controller.enqueue(chunk);
        return;
      }
      if (room > 0) controller.enqueue(chunk.subarray(0, room));
      controller.enqueue(encoder.encode(`\n[cut: the error body is over ${max} bytes]`));
      controller.terminate();
    },
  });
}

/**
 * An SSE stream, each event capped at `maxMessageBytes` and the whole at `maxStreamBytes`. On a
 * POST's stream the SDK only reports a broken stream (its request would wait for its timeout),
 * so the request is answered with the error as a JSON-RPC error event, and the stream ends. A
 * stream no request waits on (the GET stream) fails with the typed error.
 */
function meterEvents(
  limits: Pick<McpLimits, "maxMessageBytes" | "maxStreamBytes">,
  requestBody: unknown,
): TransformStream<Bytes, Bytes> {
  const meter = new SseMeter(limits.maxMessageBytes, limits.maxStreamBytes);
  return new TransformStream({
    transform(chunk, controller) {
      const within = meter.feed(chunk);
      if (meter.overflow === undefined) {
        controller.enqueue(chunk);
        return;
      }
      // Events complete before the limit are still delivered (the answer may be among them).
      if (within > 0) controller.enqueue(chunk.subarray(0, within));
      const error =
        meter.overflow === "event"
          ? new McpResponseTooLargeError("maxMessageBytes", limits.maxMessageBytes, "SSE event")
          : new McpResponseTooLargeError("maxStreamBytes", limits.maxStreamBytes, "SSE stream");
      const ids = requestIds(requestBody);
      if (ids.length === 0) {
        controller.error(error);
        return;
      }
      controller.enqueue(encoder.encode(errorEvents(ids, error)));
      controller.terminate();
    },
  });
}

/** The ids of the requests a POST body carries (a message or a batch), none for anything else. */
function requestIds(body: unknown): (string | number)[] {
  if (typeof body !== "string") return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  const ids: (string | number)[] = [];
  for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
    if (typeof message !== "object" || message === null || !("method" in message)) continue;
    const { id } = message as { id?: unknown };
    if (typeof id === "string" || typeof id === "number") ids.push(id);
  }
  return ids;
}

/**
 * A blank line (it ends the event cut short, which the SDK then fails to parse and reports),
 * then one error response per request.
 */
function errorEvents(ids: readonly (string | number)[], error: McpResponseTooLargeError): string {
  const events = ids.map((id) => {
    const message = {
      jsonrpc: "2.0",
      id,
      error: {
        code: INTERNAL_ERROR,
        message: error.message,
        data: { limit: error.limit, limitBytes: error.limitBytes },
      },
    };
    return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
  });
  return `\n\n${events.join("")}`;
}

/** `response` with another body; the SDK reads where a redirect pointed from `url` and `type`. */
function rewrap(response: Response, body: ReadableStream<Bytes>): Response {
  const out = new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  Object.defineProperties(out, {
    url: { value: response.url },
    redirected: { value: response.redirected },
    type: { value: response.type },
  });
  return out;
}
