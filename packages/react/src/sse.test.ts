import { describe, expect, it } from "vitest";
import { MAX_SSE_MESSAGE_CHARS, readSse, type SseMessage } from "./sse.js";

/** A body delivering `text` in the given chunk sizes, to split messages anywhere. */
function body(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

const STREAM =
  'retry: 1000\n: connected\n\nid: 1\nevent: started\ndata: {"offset":1}\n\n: heartbeat\n\n' +
  'id: 2\r\nevent: text\r\ndata: {"t":"é😀"}\r\n\r\ndata: a\ndata: b\n\n';

describe("readSse", () => {
  it("parses messages split at every chunk size, skipping comments, with CRLF and multi-line data", async () => {
    for (let size = 1; size <= 17; size++) {
      const messages: SseMessage[] = [];
      await readSse(body(STREAM, size), (m) => {
        messages.push(m);
        return false;
      });
      expect(messages).toEqual([
        { id: "1", event: "started", data: '{"offset":1}' },
        { id: "2", event: "text", data: '{"t":"é😀"}' },
        { event: "message", data: "a\nb" },
      ]);
    }
  });

  it("refuses a message over the cap instead of growing without end", async () => {
    const huge = `data: ${"x".repeat(MAX_SSE_MESSAGE_CHARS + 10)}`;
    await expect(readSse(body(huge, 64 * 1024), () => false)).rejects.toThrow(/over the size/);
  });
});

/** A never-ending body that records whether it was cancelled, after sending `text`. */
function endless(text: string): { body: ReadableStream<Uint8Array>; cancelled: () => boolean } {
  let cancelled = false;
  let sent = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) return new Promise<void>(() => {}); // open, idle: as a waiting run's stream
      sent = true;
      controller.enqueue(new TextEncoder().encode(text));
    },
    cancel() {
      cancelled = true;
    },
  });
  return { body, cancelled: () => cancelled };
}

describe("readSse cancels the body on every way out but its end", () => {
  it("when onMessage throws", async () => {
    const { body, cancelled } = endless("data: 1\n\n");
    await expect(
      readSse(body, () => {
        throw new Error("a bug in the page");
      }),
    ).rejects.toThrow(/a bug/);
    expect(cancelled()).toBe(true);
  });

  it("when a message is over the cap", async () => {
    const { body, cancelled } = endless(`data: ${"x".repeat(MAX_SSE_MESSAGE_CHARS + 10)}`);
    await expect(readSse(body, () => false)).rejects.toThrow(/over the size/);
    expect(cancelled()).toBe(true);
  });

  it("when onMessage says stop, and when the signal aborts", async () => {
    const stopped = endless("data: 1\n\n");
    await readSse(stopped.body, () => true);
    expect(stopped.cancelled()).toBe(true);

    const controller = new AbortController();
    const aborted = endless("data: 1\n\n");
    await readSse(
      aborted.body,
      () => {
        controller.abort(); // the next read waits on an idle body: only the abort ends it
        return false;
      },
      controller.signal,
    );
    expect(aborted.cancelled()).toBe(true);
  });
});
