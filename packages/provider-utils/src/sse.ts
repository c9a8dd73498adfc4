import { raceAbort } from "./abort.js";

/** One Server-Sent Event: its `event` name (`"message"` when unnamed), its data and its id. */
export interface SSEEvent {
  event: string;
  /** The `data:` lines joined with `\n`. */
  data: string;
  id?: string;
}

/**
 * An incremental Server-Sent Events parser (the WHATWG event-stream rules): feed it text in
 * pieces cut anywhere, even between `\r` and `\n`, and it returns the events each piece
 * completes. Comment lines (`:` first) are skipped; `retry:` is ignored. Use it when you read
 * a stream yourself; {@link readSSE} wraps it for a `ReadableStream` of bytes.
 */
export class SSEParser {
  #buffer = "";
  #data: string[] = [];
  #event = "";
  #id: string | undefined;
  #hasData = false;

  /** Adds text and returns the events it completed, in order. */
  push(text: string): SSEEvent[] {
    this.#buffer += text;
    const events: SSEEvent[] = [];
    let start = 0;
    for (let i = 0; i < this.#buffer.length; i++) {
      const char = this.#buffer[i];
      if (char !== "\n" && char !== "\r") continue;
      // A `\r` at the very end may be the first half of `\r\n`: wait for the next piece.
      if (char === "\r" && i === this.#buffer.length - 1) break;
      this.#line(this.#buffer.slice(start, i), events);
      if (char === "\r" && this.#buffer[i + 1] === "\n") i++;
      start = i + 1;
    }
    this.#buffer = this.#buffer.slice(start);
    return events;
  }

  /**
   * Ends the stream: a last event that was not followed by a blank line is still delivered
   * (some servers close without one).
   */
  end(): SSEEvent[] {
    const events: SSEEvent[] = [];
    if (this.#buffer !== "") {
      this.#line(this.#buffer.replace(/\r$/, ""), events);
      this.#buffer = "";
    }
    this.#dispatch(events);
    return events;
  }

  #line(line: string, events: SSEEvent[]): void {
    if (line === "") {
      this.#dispatch(events);
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "data":
        this.#data.push(value);
        this.#hasData = true;
        break;
      case "event":
        this.#event = value;
        break;
      case "id":
        if (!value.includes("\0")) this.#id = value;
        break;
      default:
        break;
    }
  }

  #dispatch(events: SSEEvent[]): void {
    if (this.#hasData) {
      const event: SSEEvent = { event: this.#event || "message", data: this.#data.join("\n") };
      if (this.#id !== undefined) event.id = this.#id;
      events.push(event);
    }
    this.#data = [];
    this.#hasData = false;
    this.#event = "";
  }
}

/**
 * Reads a byte stream (a `fetch` response body) as Server-Sent Events. Bytes are decoded as
 * UTF-8 across chunk boundaries, so a multi-byte character split between two network packets
 * arrives whole. Stopping the iteration early, or aborting `signal`, cancels the body; an abort
 * rejects with the signal's reason even if the body never answers again.
 */
export async function* readSSE(
  body: ReadableStream<Uint8Array>,
  options: { signal?: AbortSignal | undefined } = {},
): AsyncGenerator<SSEEvent> {
  const { signal } = options;
  const reader = body.getReader();
  const decoder = new TextDecoder("utf-8");
  const parser = new SSEParser();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await raceAbort(reader.read(), signal);
      if (done) break;
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
    finished = true;
    yield* parser.push(decoder.decode());
    yield* parser.end();
  } finally {
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
