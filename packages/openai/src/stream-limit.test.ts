// A streamed answer is capped in all by maxResponseBytes, against a real HTTP server: many text
// deltas, each far below maxEventBytes, must not pile up into an answer past the cap.
import type { Model } from "@toolnexus/core";
import { ProviderError } from "@toolnexus/provider-utils";
import { mockServerPerTest, sseEvent } from "@toolnexus/provider-utils/testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openai } from "./model.js";
import { chunk } from "./test-fixtures.js";

const mock = mockServerPerTest(afterEach);
const MiB = 1024 * 1024;

beforeEach(() => {
  vi.stubEnv("OPENAI_BASE_URL", "");
});

afterEach(() => {
  vi.unstubAllEnvs();
});

function model(url: string, maxResponseBytes?: number): Model {
  return openai({
    model: "gpt-4o-mini",
    baseUrl: `${url}/v1`,
    apiKey: "sk-test-streamcap-0123",
    retryBaseMs: 1,
    ...(maxResponseBytes === undefined ? {} : { maxResponseBytes }),
  });
}

/** Streams the answer, counting the text parts and their characters, and how it ended. */
async function drain(m: Model) {
  let parts = 0;
  let text = 0;
  let finished = false;
  let error: unknown;
  try {
    for await (const part of m.stream!({
      messages: [{ role: "user", content: "hi" }],
      tools: [],
    })) {
      if (part.type === "text") {
        parts++;
        text += part.delta.length;
      }
      if (part.type === "finish") finished = true;
    }
  } catch (thrown) {
    error = thrown;
  }
  return { parts, text, finished, error };
}

describe("maxResponseBytes on a streamed answer", () => {
  it("200 deltas of 256 KiB with a 1 MiB cap stop near 1 MiB with provider_limit", async () => {
    const delta = sseEvent(chunk("c", { content: "z".repeat(256 * 1024) }));
    const server = await mock.serve([
      {
        chunks: [
          ...Array<string>(200).fill(delta),
          sseEvent(chunk("c", {}, "stop")),
          "data: [DONE]\n\n",
        ],
        chunkDelayMs: 0,
      },
    ]);
    const { text, finished, error } = await drain(model(server.url, MiB));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ code: "provider_limit", provider: "openai", retryable: false });
    expect((error as Error).message).toContain("maxResponseBytes (1048576 bytes)");
    expect(finished).toBe(false);
    // Fewer than 4 of the deltas fit in 1 MiB with their JSON around them.
    expect(text).toBeLessThan(MiB);
    expect(text).toBeGreaterThan(0);
    expect(server.requests).toHaveLength(1);
    // 50 MiB offered: the body was cancelled, not read to its end.
    expect(server.sent[0]).toBeLessThan(16 * MiB);
  }, 60_000);

  it("an answer within the cap streams whole", async () => {
    const deltas = Array.from({ length: 100 }, (_, i) =>
      sseEvent(chunk("c", { content: `${i},` })),
    );
    const server = await mock.serve([
      { chunks: [...deltas, sseEvent(chunk("c", {}, "stop")), "data: [DONE]\n\n"] },
    ]);
    const { text, finished, error } = await drain(model(server.url, 64 * 1024));
    expect(error).toBeUndefined();
    expect(finished).toBe(true);
    expect(text).toBe(deltas.reduce((n, _, i) => n + `${i},`.length, 0));
  });
});
