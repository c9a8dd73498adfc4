// The total cap of a stream (maxResponseBytes, as for a non-streamed answer), against a real
// HTTP server: many events each far below maxEventBytes must not add up past it.
import { afterEach, describe, expect, it } from "vitest";
import { ProviderError } from "./errors.js";
import { type HttpSettings, postForStream, streamEvents } from "./http.js";
import { DEFAULT_MAX_RESPONSE_BYTES } from "./limits.js";
import { readSSE, SSEStreamTooLargeError } from "./sse.js";
import { type MockReply, mockServerPerTest } from "./testing.js";

const mock = mockServerPerTest(afterEach);
const KiB = 1024;

function settings(overrides: Partial<HttpSettings> = {}): HttpSettings {
  return { provider: "test", retries: 2, retryBaseMs: 1, secrets: [], ...overrides };
}

/** Reads the stream the server answers with; what arrived, and how it ended. */
async function read(reply: MockReply, overrides: Partial<HttpSettings> = {}) {
  const server = await mock.serve([reply]);
  const http = settings(overrides);
  const response = await postForStream({ url: `${server.url}/s`, headers: {}, body: {} }, http);
  let events = 0;
  let dataBytes = 0;
  let error: unknown;
  try {
    for await (const event of streamEvents(response, undefined, http)) {
      events++;
      dataBytes += event.data.length;
    }
  } catch (thrown) {
    error = thrown;
  }
  return { events, dataBytes, error, server };
}

/** One event of `size` bytes in all (`data: ` + its data + the blank line). */
const eventOf = (size: number) => `data: ${"z".repeat(size - 8)}\n\n`;

describe("maxResponseBytes on a stream", () => {
  it("many small events past it in all stop the stream with provider_limit", async () => {
    // 1024 events of 64 KiB (64 MiB offered), each far below maxEventBytes; the cap is 1 MiB.
    const { events, dataBytes, error, server } = await read(
      { chunks: Array<string>(1024).fill(eventOf(64 * KiB)), chunkDelayMs: 0 },
      { maxResponseBytes: 1024 * KiB },
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ code: "provider_limit", retryable: false, status: 200 });
    expect((error as Error).message).toContain("maxResponseBytes (1048576 bytes)");
    // At most the 16 events that fit in the cap were handed on.
    expect(events).toBeLessThanOrEqual(16);
    expect(dataBytes).toBeLessThanOrEqual(1024 * KiB);
    // Not retried, and the body was cancelled near the cap rather than read to its end.
    expect(server.requests).toHaveLength(1);
    expect(server.sent[0]).toBeLessThan(16 * 1024 * KiB);
  }, 60_000);

  it("counts every byte of the body: a stream of exactly the cap passes, one byte less fails", async () => {
    const chunks = Array<string>(40).fill(eventOf(100)); // 4000 bytes
    const whole = await read({ chunks }, { maxResponseBytes: 4000 });
    expect(whole.error).toBeUndefined();
    expect(whole.events).toBe(40);
    const over = await read({ chunks }, { maxResponseBytes: 3999 });
    expect(over.error).toMatchObject({ code: "provider_limit" });
    expect(over.events).toBeLessThan(40);
  });

  it("keep-alive comments count too: an endless stream of them is stopped", async () => {
    const comment = `: ${"k".repeat(4 * KiB)}\n`;
    const { events, error, server } = await read(
      { chunks: Array<string>(2048).fill(comment), chunkDelayMs: 0 },
      { maxResponseBytes: 64 * KiB },
    );
    expect(error).toMatchObject({ code: "provider_limit" });
    expect(events).toBe(0);
    expect(server.sent[0]).toBeLessThan(8 * 1024 * KiB);
  }, 60_000);

  it("defaults to DEFAULT_MAX_RESPONSE_BYTES (64 MiB)", async () => {
    // 80 MiB of 1 MiB events: past the default, never past maxEventBytes (16 MiB).
    const { events, error } = await read({
      chunks: Array<string>(80).fill(eventOf(1024 * KiB)),
      chunkDelayMs: 0,
    });
    expect(error).toMatchObject({ code: "provider_limit" });
    expect((error as Error).message).toContain(`(${DEFAULT_MAX_RESPONSE_BYTES} bytes)`);
    expect(events).toBeLessThanOrEqual(64);
  }, 60_000);
});

describe("readSSE maxStreamBytes", () => {
  it("is an SSEStreamTooLargeError naming the cap, after the events that fit", async () => {
    const server = await mock.serve([{ chunks: Array<string>(10).fill(eventOf(1000)) }]);
    const response = await fetch(server.url, { method: "POST" });
    const body = response.body;
    if (body === null) throw new Error("no body");
    let events = 0;
    const error = await (async () => {
      for await (const _ of readSSE(body, { maxStreamBytes: 3500 })) events++;
    })().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(SSEStreamTooLargeError);
    expect((error as SSEStreamTooLargeError).maxStreamBytes).toBe(3500);
    expect(events).toBeLessThanOrEqual(3);
  });
});
