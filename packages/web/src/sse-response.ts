// A Server-Sent Events response over any async source of frames, for handlers of other
// protocols (the AI SDK's UI message stream, AG-UI): pulled one frame at a time, so a slow
// client holds the source back instead of growing a queue; a comment line while idle, so
// proxies keep the connection; stopped (and the source ended) when the client goes away.

/** Options of {@link sseResponse}. */
export interface SseResponseOptions {
  /**
   * The frames, each already SSE text ending in a blank line (`data: …\n\n`). Given as a
   * function, it is handed a signal that aborts when the client goes away, whether the host
   * aborts the request's signal or only cancels the body (some frameworks do only that): a
   * source waiting for its next frame can stop at once instead of at its next frame.
   */
  frames: AsyncIterable<string> | ((signal: AbortSignal) => AsyncIterable<string>);
  /** The request's signal: the client went away. */
  signal: AbortSignal;
  /** A `: heartbeat` comment this often while the stream is open (ms). */
  heartbeatMs: number;
  /** Written before the first frame (default `": connected\n\n"`, so headers go out at once). */
  preamble?: string;
  /** Headers besides the event-stream ones (a protocol's version header). */
  headers?: Record<string, string>;
  /** Called once when the stream ends, however it ends (a stream slot's release). */
  onClose?: () => void;
  /** An error thrown by `frames`: the host's to log; the stream just ends. */
  onError: (error: unknown) => void;
}

/** The headers of every event stream: not cached, not transformed, not buffered by nginx. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-store, no-transform",
  "x-accel-buffering": "no",
  "x-content-type-options": "nosniff",
};

/** A `200` event stream of `frames`; see {@link SseResponseOptions}. */
export function sseResponse(options: SseResponseOptions): Response {
  const encoder = new TextEncoder();
  const gone = new AbortController();
  const source =
    typeof options.frames === "function" ? options.frames(gone.signal) : options.frames;
  const iterator = source[Symbol.asyncIterator]();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let closed = false;
  const cleanup = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    options.signal.removeEventListener("abort", onAbort);
    gone.abort();
    options.onClose?.();
    void Promise.resolve()
      .then(() => iterator.return?.(undefined))
      .catch(() => {});
  };
  const onAbort = () => cleanup();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (options.signal.aborted) {
        cleanup();
        controller.close();
        return;
      }
      options.signal.addEventListener("abort", onAbort, { once: true });
      controller.enqueue(encoder.encode(options.preamble ?? ": connected\n\n"));
      heartbeat = setInterval(() => {
        if (closed) return;
        try {
          controller.enqueue(encoder.encode(": heartbeat\n\n"));
        } catch {
          cleanup(); // the body was closed meanwhile
        }
      }, options.heartbeatMs);
    },
    async pull(controller) {
      let next: IteratorResult<string>;
      try {
        next = closed ? { done: true, value: undefined } : await iterator.next();
      } catch (error) {
        if (!closed) options.onError(error);
        next = { done: true, value: undefined };
      }
      if (next.done || closed) {
        cleanup();
        try {
          controller.close();
        } catch {
          // The client cancelled the body meanwhile: nothing is left to close.
        }
        return;
      }
      controller.enqueue(encoder.encode(next.value));
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(body, { status: 200, headers: { ...SSE_HEADERS, ...options.headers } });
}
