import { createParser, type EventSourceParser } from "eventsource-parser";
import { raceAbort } from "./abort.js";
import { EventSizeMeter } from "./sse-size.js";

/** One Server-Sent Event: its `event` name (`"message"` when unnamed), its data and its id. */
export interface SSEEvent {
  event: string;
  /** The `data:` lines joined with `\n`. */
  data: string;
  id?: string;
}

/**
 * An incremental Server-Sent Events parser (the WHATWG event-stream rules, implemented by
 * `eventsource-parser`): feed it text in pieces cut anywhere, even between `\r` and `\n`, and it
 * returns the events each piece completes. Comment lines (`:` first) are skipped; `retry:` and
 * unknown fields are ignored; an event without `data:` is dropped. Use it when you read a stream
 * yourself; {@link readSSE} wraps it for a `ReadableStream` of bytes.
 */
export class SSEParser {
  #events: SSEEvent[] = [];
  readonly #parser: EventSourceParser = createParser({
    onEvent: (message) => {
      const event: SSEEvent = { event: message.event || "message", data: message.data };
      if (message.id !== undefined) event.id = message.id;
      this.#events.push(event);
    },
  });

  /** Adds text and returns the events it completed, in order. */
  push(text: string): SSEEvent[] {
    this.#parser.feed(text);
    return this.#take();
  }

  /**
   * Ends the stream: a last event that was not followed by a blank line is still delivered
   * (some servers close without one). The parser is ready for a new stream afterwards.
   */
  end(): SSEEvent[] {
    // Ends a cut-off line (a lone `\r` left over becomes `\r\n`), then a blank line dispatches
    // what was gathered; an extra blank line without data dispatches nothing.
    this.#parser.feed("\n\n");
    this.#parser.reset();
    return this.#take();
  }

  #take(): SSEEvent[] {
    const events = this.#events;
    this.#events = [];
    return events;
  }
}

/**
 * Thrown by {@link readSSE} when one event grows past `maxEventBytes`: the bytes of its lines
 * since the previous event ended (finished comment lines not counted, an unfinished line of any
 * kind counted). Reading stopped there and the body was cancelled.
 */
export class SSEEventTooLargeError extends Error {
  /** The cap that was passed, in bytes. */
  readonly maxEventBytes: number;
  constructor(maxEventBytes: number) {
    super(`a streamed event is larger than ${maxEventBytes} bytes`);
    this.name = "SSEEventTooLargeError";
    this.maxEventBytes = maxEventBytes;
  }
}

/**
 * Thrown by {@link readSSE} when the whole stream grows past `maxStreamBytes` (every byte of the
 * body, framing and comments included), however small each event is. Reading stopped there and
 * the body was cancelled.
 */
export class SSEStreamTooLargeError extends Error {
  /** The cap that was passed, in bytes. */
  readonly maxStreamBytes: number;
  constructor(maxStreamBytes: number) {
    super(`a stream is larger than ${maxStreamBytes} bytes`);
    this.name = "SSEStreamTooLargeError";
    this.maxStreamBytes = maxStreamBytes;
  }
}

/** Options of {@link readSSE} and {@link readSSEBatches}. */
export interface ReadSSEOptions {
  signal?: AbortSignal | undefined;
  maxEventBytes?: number | undefined;
  /** The most bytes read from the body in all; past it, an {@link SSEStreamTooLargeError}. */
  maxStreamBytes?: number | undefined;
}

/**
 * Reads a byte stream (a `fetch` response body) as Server-Sent Events. Bytes are decoded as
 * UTF-8 across chunk boundaries, so a multi-byte character split between two network packets
 * arrives whole. Stopping the iteration early, or aborting `signal`, cancels the body; an abort
 * rejects with the signal's reason even if the body never answers again. With `maxEventBytes`,
 * an event that grows past it is an {@link SSEEventTooLargeError} and the body is cancelled, so
 * a never-ending event is never held in memory whole. With `maxStreamBytes`, a body that grows
 * past it in all is an {@link SSEStreamTooLargeError}, the body cancelled the same way, so
 * endless small events cannot pile up either.
 */
export async function* readSSE(
  body: ReadableStream<Uint8Array>,
  options: ReadSSEOptions = {},
): AsyncGenerator<SSEEvent> {
  for await (const batch of readSSEBatches(body, options)) yield* batch;
}

/**
 * {@link readSSE}, one batch at a time: the events each chunk of the body completed, in order
 * (never an empty batch). The same guarantees; one step of the iteration per chunk instead of
 * per event, for a reader that handles thousands of small events (a model's streamed deltas).
 */
export async function* readSSEBatches(
  body: ReadableStream<Uint8Array>,
  options: ReadSSEOptions = {},
): AsyncGenerator<SSEEvent[]> {
  const { signal, maxEventBytes, maxStreamBytes } = options;
  const reader = body.getReader();
  const decoder = new TextDecoder("utf-8");
  const parser = new SSEParser();
  let finished = false;
  const meter = maxEventBytes === undefined ? undefined : new EventSizeMeter();
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await raceAbort(reader.read(), signal);
      if (done) break;
      // Counted before parsing too: a chunk past the cap yields none of its events.
      total += value.byteLength;
      if (maxStreamBytes !== undefined && total > maxStreamBytes) {
        throw new SSEStreamTooLargeError(maxStreamBytes);
      }
      // Measured before the parser sees the chunk, so it never holds an event past the cap.
      if (meter !== undefined && maxEventBytes !== undefined && meter.add(value) > maxEventBytes) {
        throw new SSEEventTooLargeError(maxEventBytes);
      }
      const events = parser.push(decoder.decode(value, { stream: true }));
      if (events.length > 0) yield events;
    }
    finished = true;
    const last = [...parser.push(decoder.decode()), ...parser.end()];
    if (last.length > 0) yield last;
  } finally {
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
