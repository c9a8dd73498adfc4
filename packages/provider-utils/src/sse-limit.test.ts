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
