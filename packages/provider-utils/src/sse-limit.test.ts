import { describe, expect, it } from "vitest";
import { readSSE, type SSEEvent, SSEEventTooLargeError } from "./sse.js";

/** A body that hands out one chunk per read, as a network would. */
function streamOf(chunks: readonly string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const queue = [...chunks];
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = queue.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(encoder.encode(next));
    },
  });
}

async function all(body: ReadableStream<Uint8Array>, maxEventBytes: number): Promise<SSEEvent[]> {
  const out: SSEEvent[] = [];
  for await (const event of readSSE(body, { maxEventBytes })) out.push(event);
  return out;
}

describe("readSSE maxEventBytes", () => {
  it("many small events, far more than the cap in all, pass", async () => {
    const events = Array.from({ length: 500 }, (_, i) => `data: ${i}\n\n`);
    expect(await all(streamOf(events), 64)).toHaveLength(500);
  });

  it("small events split one byte per chunk pass", async () => {
    const text = "data: one\r\n\r\ndata: two\n\ndata: three\r\r".repeat(20);
    expect(await all(streamOf([...text]), 32)).toHaveLength(60);
  });

  it("one event past the cap is an SSEEventTooLargeError, even split into small chunks", async () => {
    const big = `data: ${"x".repeat(5000)}\n\n`;
    const chunks = ["data: ok\n\n", ...(big.match(/.{1,100}/gs) ?? [])];
    const error = await all(streamOf(chunks), 1024).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SSEEventTooLargeError);
    expect((error as SSEEventTooLargeError).maxEventBytes).toBe(1024);
  });

  it("the event before the big one is still delivered", async () => {
    const seen: string[] = [];
    const body = streamOf(["data: first\n\n", `data: ${"y".repeat(4096)}`]);
    await expect(
      (async () => {
        for await (const event of readSSE(body, { maxEventBytes: 1024 })) seen.push(event.data);
      })(),
    ).rejects.toBeInstanceOf(SSEEventTooLargeError);
    expect(seen).toEqual(["first"]);
  });
});

describe("readSSE maxEventBytes and comments", () => {
  it("keep-alive comments between events, far more than the cap in all, pass", async () => {
    const text = `${": OPENROUTER PROCESSING\n\n".repeat(200)}data: {"ok":true}\n\n`;
    const events = await all(streamOf([text.slice(0, 3000), text.slice(3000)]), 256);
    expect(events.map((e) => e.data)).toEqual(['{"ok":true}']);
  });

  it("an endless comment line is capped too (a parser holds an unfinished line)", async () => {
    const error = await all(streamOf([": ", "c".repeat(4096)]), 1024).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SSEEventTooLargeError);
  });

  it("counts an event across CRLF, CR and LF line ends alike", async () => {
    const event = "data: 0123456789\r\ndata: 0123456789\rdata: 0123456789\n\n";
    // 3 lines of 16 bytes plus their 3 line ends: 51 bytes.
    expect(await all(streamOf([event]), 51)).toHaveLength(1);
    await expect(all(streamOf([event]), 50)).rejects.toBeInstanceOf(SSEEventTooLargeError);
  });
});
