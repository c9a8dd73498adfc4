// `GET /runs/:id/events` as Server-Sent Events: each recorded event once, in order, with its
// offset as the SSE id so a browser's EventSource resumes where it left off (Last-Event-ID).
// The stream ends after the run's terminal event, or when the client goes away.
import {
  followRunEvents,
  type RecordedRunEvent,
  RunNotFoundError,
  type RunStore,
} from "@toolnexus/core";
import { SSE_HEADERS } from "./sse-response.js";

export interface EventStreamOptions {
  store: RunStore;
  runId: string;
  after: number;
  heartbeatMs: number;
  pollMs?: number;
  /** The request's signal: the client went away. */
  signal: AbortSignal;
  /** An error while following (a store failure): logged by the host, the stream just ends. */
  onError: (error: unknown) => void;
  /** Called once when the stream stops, however it stops (ended, cancelled, client gone). */
  onClose?: () => void;
}

/** One event as SSE lines; `data` is JSON, so it has no raw newline to split. */
export function sseFrame(event: RecordedRunEvent): string {
  const data = JSON.stringify({ offset: event.offset, at: event.at, data: event.data });
  return `id: ${event.offset}\nevent: ${event.type}\ndata: ${data}\n\n`;
}

export function eventStreamResponse(options: EventStreamOptions): Response {
  const encoder = new TextEncoder();
  // The client went away before the response was made (a slow identify, say): an "abort"
  // listener added now would never fire, so nothing is followed and the body is closed at once.
  if (options.signal.aborted) {
    options.onClose?.();
    return new Response(null, { status: 200, headers: { ...SSE_HEADERS } });
  }
  // Stops following when the client disconnects (the request's signal) or cancels the body.
  const stop = new AbortController();
  // Everything stops at once, even when no read is pending (a host that never cancels the body).
  const onAbort = () => cleanup();
  options.signal.addEventListener("abort", onAbort, { once: true });
  const events = followRunEvents(options.store, options.runId, {
    after: options.after,
    signal: stop.signal,
    ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
  });
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let closed = false;
  const cleanup = () => {
    clearInterval(heartbeat);
    if (!closed) {
      closed = true;
      options.onClose?.();
    }
    options.signal.removeEventListener("abort", onAbort);
    stop.abort(); // wakes a pending read, which then ends
    void events.return(undefined).catch(() => {});
  };

  // Pull-based: the next event is read only when the client has taken the previous ones, so a
  // slow client holds back the follower instead of growing a queue in memory.
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // Tells EventSource how long to wait before reconnecting; then a first comment, so that
      // headers and a first byte reach the client at once.
      controller.enqueue(encoder.encode("retry: 1000\n: connected\n\n"));
      heartbeat = setInterval(() => {
        if (!stop.signal.aborted) controller.enqueue(encoder.encode(": heartbeat\n\n"));
      }, options.heartbeatMs);
    },
    async pull(controller) {
      let next: IteratorResult<RecordedRunEvent, void>;
      try {
        next = await events.next();
      } catch (error) {
        // A run pruned while followed just ends its stream; anything else is the host's to see.
        if (!stop.signal.aborted && !(error instanceof RunNotFoundError)) options.onError(error);
        next = { done: true, value: undefined };
      }
      if (next.done || stop.signal.aborted) {
        cleanup();
        try {
          controller.close();
        } catch {
          // The client cancelled the body meanwhile: nothing is left to close.
        }
        return;
      }
      controller.enqueue(encoder.encode(sseFrame(next.value)));
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(body, { status: 200, headers: { ...SSE_HEADERS } });
}
