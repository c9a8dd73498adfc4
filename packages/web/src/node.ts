// node:http glue for a Fetch API handler: an IncomingMessage becomes a Request (its body
// streamed and capped, its signal aborted when the client goes away), and the Response is
// streamed back chunk by chunk, so an event stream flows as it is written.
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";

/** Options of {@link toNodeListener}. */
export interface NodeListenerOptions {
  /**
   * The most bytes of a request body passed on to the handler (default 1 MiB). A body declared
   * or streamed over it gets a 413 here, before the handler reads it; the handler's own
   * `maxBodyBytes` still applies.
   */
  maxBodyBytes?: number;
  /** Called with an error writing a response (the socket failed); default: ignored. */
  onError?: (error: unknown) => void;
}

/** Default {@link NodeListenerOptions.maxBodyBytes}. */
export const DEFAULT_NODE_MAX_BODY_BYTES = 1024 * 1024;

type FetchHandler = (request: Request) => Response | Promise<Response>;

/**
 * A `node:http` listener serving `handler`: `createServer(toNodeListener(handler))`.
 * The URL is built from the Host header (http, or https on a TLS socket).
 */
export function toNodeListener(
  handler: FetchHandler,
  options: NodeListenerOptions = {},
): RequestListener {
  const maxBytes = options.maxBodyBytes ?? DEFAULT_NODE_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) {
    throw new TypeError("toNodeListener: maxBodyBytes must be a whole number, 1 or more");
  }
  return (req, res) => {
    void serve(handler, req, res, maxBytes).catch((error: unknown) => {
      options.onError?.(error);
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.destroy();
    });
  };
}

function tooLarge(res: ServerResponse, maxBytes: number): void {
  // The handler may have answered without reading the body (a 401, a 403): leave its answer be.
  if (res.headersSent) return;
  const body = JSON.stringify({
    error: {
      code: "payload_too_large",
      message: `the body is over the ${maxBytes} bytes accepted`,
    },
  });
  res.writeHead(413, { "content-type": "application/json; charset=utf-8", connection: "close" });
  res.end(body);
}

async function serve(
  handler: FetchHandler,
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number,
): Promise<void> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > maxBytes) {
    req.resume(); // drain, don't read into memory
    return tooLarge(res, maxBytes);
  }
  // The client went away: abort the Request's signal, so an event stream stops following.
  const aborter = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) aborter.abort();
  });

  const request = new Request(urlOf(req), {
    method: req.method ?? "GET",
    headers: headersOf(req),
    signal: aborter.signal,
    ...(req.method === "GET" || req.method === "HEAD"
      ? {}
      : { body: bodyOf(req, maxBytes, () => tooLarge(res, maxBytes)), duplex: "half" }),
  } as RequestInit);

  const response = await handler(request);
  if (res.headersSent || aborter.signal.aborted || res.destroyed) {
    // The body cap already answered, or the client left while the handler ran: an "abort"
    // listener added now would never fire, so the body (an event stream) is cancelled here.
    await response.body?.cancel().catch(() => {});
    return;
  }
  const headers = headersOut(response.headers);
  if (req.complete || req.headers["content-length"] !== undefined) {
    // What the handler left unread (a 401 that never read the body, its own 413) is dropped to
    // keep the connection: it is all here, or its declared length, at most `maxBytes`.
    req.resume();
  } else {
    // A chunked body still coming could go on without end: it is not read. `connection: close`
    // has node:http close the socket once this answer is sent.
    headers.connection = "close";
  }
  if (response.statusText === "") res.writeHead(response.status, headers);
  else res.writeHead(response.status, response.statusText, headers);
  if (response.body === null || req.method === "HEAD") {
    await response.body?.cancel();
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const stop = () => void reader.cancel().catch(() => {});
  aborter.signal.addEventListener("abort", stop, { once: true });
  let ended = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        break;
      }
      // Wait for the socket to drain, so a slow client does not grow the buffer unbounded.
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          // The socket closed already: 'drain' and 'close' have fired and would not again.
          if (res.destroyed || res.closed) return resolve();
          // Both listeners go once either fires: a long stream waits many times.
          const done = () => {
            res.off("drain", done);
            res.off("close", done);
            resolve();
          };
          res.on("drain", done);
          res.on("close", done);
        });
      }
      if (aborter.signal.aborted || res.destroyed) break;
    }
  } finally {
    aborter.signal.removeEventListener("abort", stop);
    // Left early (the socket went, or a write failed): the body must stop producing too.
    if (!ended) stop();
    if (!aborter.signal.aborted && !res.destroyed) res.end();
  }
}

function urlOf(req: IncomingMessage): string {
  const tls = (req.socket as { encrypted?: boolean }).encrypted === true;
  const host = req.headers.host;
  // A Host that is not a plain host[:port] is not trusted into the URL (and so the origin).
  const safeHost =
    host !== undefined && /^[A-Za-z0-9.\-[\]:]{1,255}$/.test(host) ? host : "localhost";
  return new URL(`${tls ? "https" : "http"}://${safeHost}${pathOf(req.url ?? "/")}`).toString();
}

/**
 * The path and query of a request target. An absolute-form target (`GET http://other/x`) must
 * not choose the URL's origin, which the handler's origin check compares a POST's Origin with.
 */
function pathOf(target: string): string {
  const absolute = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(target);
  const path = absolute ? target.slice(absolute[0].length) : target;
  // `//host/x` would read as another host: leading slashes collapse to one.
  return `/${path.replace(/^\/+/, "")}`;
}

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (name.startsWith(":") || value === undefined) continue; // HTTP/2 pseudo-headers
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  return headers;
}

/**
 * The request body as a stream that errors (and answers 413) past `maxBytes`. Once the stream
 * is errored or cancelled (the handler stopped reading), no more of the body is read: the
 * request is left paused until `serve` answers, which then drops a declared length's rest or
 * closes the connection on a chunked body.
 */
function bodyOf(
  req: IncomingMessage,
  maxBytes: number,
  onTooLarge: () => void,
): ReadableStream<Uint8Array> {
  let size = 0;
  let open = true;
  const refuse = () => {
    open = false;
    req.removeAllListeners("data");
    // Not `resume()`: that would read (and drop) whatever the client goes on sending, without
    // end. Paused, the socket stops being read once its buffers fill.
    req.pause();
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      req.on("data", (chunk: Buffer) => {
        if (!open) return;
        size += chunk.byteLength;
        if (size > maxBytes) {
          refuse();
          onTooLarge();
          controller.error(new RangeError(`request body over ${maxBytes} bytes`));
          return;
        }
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      });
      req.on("end", () => {
        if (!open) return;
        open = false;
        controller.close();
      });
      req.on("error", (error) => {
        if (!open) return;
        open = false;
        controller.error(error);
      });
    },
    cancel() {
      refuse();
    },
  });
}

function headersOut(headers: Headers): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  headers.forEach((value, name) => {
    if (name !== "set-cookie") out[name] = value;
  });
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) out["set-cookie"] = cookies;
  return out;
}
