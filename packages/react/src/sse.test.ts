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
