// AG-UI events as Server-Sent Events, the encoding AG-UI's HttpAgent reads: one `data:` line of
// JSON per event and a blank line. Pull-based, so a slow client holds the follower back instead
// of growing a queue; a comment line now and then keeps proxies from closing an idle stream.
import type { AGUIEvent } from "@ag-ui/core";

/** One event as an SSE frame; JSON has no raw newline, so one `data:` line holds it. */
export function sseFrame(event: AGUIEvent): string {
  return `data: ${JSON.stringify(event)}\n\n`;
}

export interface SseOptions {
  /** A comment line this often while nothing else is sent (ms). */
  heartbeatMs: number;
  /** Aborted when the client went away (the request's signal) or cancelled the body. */
  stop: AbortController;
}

/** Streams `events` as the body of a `text/event-stream` response. */
export function sseResponse(events: AsyncGenerator<AGUIEvent>, options: SseOptions): Response {
  const encoder = new TextEncoder();
  const { stop } = options;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  const cleanup = () => {
    clearInterval(heartbeat);
    stop.abort(); // wakes a pending read, which then ends
    void events.return(undefined).catch(() => {});
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(": connected\n\n"));
      heartbeat = setInterval(() => {
        if (!stop.signal.aborted) controller.enqueue(encoder.encode(": heartbeat\n\n"));
      }, options.heartbeatMs);
    },
    async pull(controller) {
      let next: IteratorResult<AGUIEvent, void>;
      try {
        next = await events.next();
      } catch {
        // The generator reports its own errors as RUN_ERROR; this is a bug's last resort.
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
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store, no-transform",
      "x-accel-buffering": "no",
      "x-content-type-options": "nosniff",
    },
  });
}
