// Reasoning: the text of `thinking` blocks (and `thinking_delta` events) shown as the response's
// `reasoning` and as `reasoning` stream parts, served from recorded Messages API traffic.
import { readFileSync } from "node:fs";
import { createClient, memoryRunStore } from "@toolnexus/client";
import type { ModelResponse, ModelStreamPart, RecordedRunEvent } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { mockServerPerTest, splitBytes } from "@toolnexus/provider-utils/testing";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { anthropic } from "./model.js";

function text(name: string): string {
  return readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), "utf8");
}

/** A `.chunks.txt` recording (one event JSON a line) framed as the API sends it. */
function sse(lines: readonly string[]): string {
  return lines
    .filter((line) => line.trim() !== "")
    .map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`)
    .join("");
}

const mock = mockServerPerTest(afterEach);
const model = () =>
  anthropic({
    model: "claude-sonnet-4-5",
    baseUrl: mock.server?.url ?? "",
    apiKey: "sk-ant-api03-TESTKEY0123456789",
    retryBaseMs: 1,
  });
const ask = { messages: [{ role: "user" as const, content: "and divided by 5?" }], tools: [] };

async function parts(stream: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const seen: ModelStreamPart[] = [];
  for await (const part of stream) seen.push(part);
  return seen;
}

function finishOf(seen: ModelStreamPart[]): ModelResponse {
  const last = seen.at(-1);
  if (last?.type !== "finish") throw new Error("no finish part");
  return last.response;
}

/** The blocks kept in providerData.anthropic, to send back next turn. */
function blocksOf(response: ModelResponse): { type: string; thinking?: string }[] {
  const kept = response.providerData?.anthropic as { blocks?: [] } | undefined;
  return kept?.blocks ?? [];
}

const recordedReasoning =
  "The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185";

describe("anthropic reasoning", () => {
  it("a thinking block's text is the response's reasoning; providerData keeps the block as it was", async () => {
    const reply = JSON.parse(text("anth-thinking.json")) as { content: Record<string, unknown>[] };
    await mock.serve([{ json: reply }]);
    const response = await model().generate(ask);
    expect(response.reasoning).toBe("925 divided by 5 = 185");
    expect(response.text).toBe("925 ÷ 5 = 185");
    expect(response.providerData).toEqual({ anthropic: { blocks: [reply.content[0]] } });
  });

  it("streams thinking_delta as reasoning parts before the text, cut anywhere", async () => {
    const body = sse(text("anth-thinking.chunks.txt").split("\n"));
    const chunks = splitBytes(body, [{ at: '"thinking_delta"', offset: 4 }]);
    await mock.serve([{ chunks }]);
    const seen = await parts(model().stream!(ask));
    const reasoning = seen.flatMap((p) => (p.type === "reasoning" ? [p.delta] : []));
    // At most one part per non-empty recorded thinking_delta (the empty last one adds none);
    // those that arrived in one network chunk come joined.
    expect(reasoning.length).toBeGreaterThanOrEqual(1);
    expect(reasoning.length).toBeLessThanOrEqual(9);
    expect(reasoning.join("")).toBe(recordedReasoning);
    const firstText = seen.findIndex((p) => p.type === "text");
    expect(seen.findLastIndex((p) => p.type === "reasoning")).toBeLessThan(firstText);
    const response = finishOf(seen);
    expect(response.reasoning).toBe(recordedReasoning);
    expect(response.text).toBe("925 ÷ 5 = 185");
    const blocks = blocksOf(response);
    expect(blocks.map((block) => block.thinking)).toEqual([recordedReasoning]);
  });

  it("joins two thinking blocks with a blank line, streamed or not; redacted_thinking adds no text", async () => {
    // The recorded reply with a redacted block and a second thinking block after the first, as
    // the API documents them (interleaved thinking).
    const redacted = {
      type: "redacted_thinking",
      data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5",
    };
    const second = {
      type: "thinking",
      thinking: "Check: 185 × 5 = 925.",
      signature: "EpYBCkYIBRgCKkC",
    };
    const reply = JSON.parse(text("anth-thinking.json")) as { content: unknown[] };
    reply.content.splice(1, 0, redacted, second);

    const lines = text("anth-thinking.chunks.txt").split("\n");
    const textStart = lines.findIndex((line) => line.includes('"index":1,"content_block"'));
    const renumbered = lines.slice(textStart).map((line) => line.replace('"index":1', '"index":3'));
    const inserted = [
      { type: "content_block_start", index: 1, content_block: redacted },
      { type: "content_block_stop", index: 1 },
      {
        type: "content_block_start",
        index: 2,
        content_block: { ...second, thinking: "", signature: "" },
      },
      {
        type: "content_block_delta",
        index: 2,
        delta: { type: "thinking_delta", thinking: "Check: " },
      },
      {
        type: "content_block_delta",
        index: 2,
        delta: { type: "thinking_delta", thinking: "185 × 5 = 925." },
      },
      {
        type: "content_block_delta",
        index: 2,
        delta: { type: "signature_delta", signature: second.signature },
      },
      { type: "content_block_stop", index: 2 },
    ].map((event) => JSON.stringify(event));
    const events = sse([...lines.slice(0, textStart), ...inserted, ...renumbered]);

    await mock.serve([{ json: reply }, { chunks: [events] }]);
    const plain = await model().generate(ask);
    const seen = await parts(model().stream!(ask));
    const streamed = finishOf(seen);
    expect(plain.reasoning).toBe("925 divided by 5 = 185\n\nCheck: 185 × 5 = 925.");
    const expected = `${recordedReasoning}\n\nCheck: 185 × 5 = 925.`;
    expect(streamed.reasoning).toBe(expected);
    expect(seen.flatMap((p) => (p.type === "reasoning" ? [p.delta] : [])).join("")).toBe(expected);
    for (const response of [plain, streamed]) {
      const blocks = blocksOf(response);
      expect(blocks.map((block) => block.type)).toEqual([
        "thinking",
        "redacted_thinking",
        "thinking",
      ]);
      expect(blocks[1]).toEqual(redacted);
    }
  });

  it("a reply without thinking has no reasoning", async () => {
    await mock.serve([{ json: JSON.parse(text("anth-refusal.json")) }]);
    const response = await model().generate(ask);
    expect("reasoning" in response).toBe(false);
  });

  it("a durable run with thinking records reasoning events for followers", async () => {
    const getUserCountry = nativeTool({
      name: "get_user_country",
      description: "The user's country",
      input: z.object({}),
      run: async () => "Mexico",
    });
    await mock.serve([
      { json: JSON.parse(text("anth-thinking-loop.1.json")) },
      { json: JSON.parse(text("anth-thinking-loop.2.json")) },
    ]);
    const client = createClient({
      model: model(),
      tools: [getUserCountry],
      runs: memoryRunStore(),
    });
    const result = await client.run("the largest city in my country?", {
      durable: true,
      runId: "run_t",
    });
    expect(result.status).toBe("done");
    const events: RecordedRunEvent[] = [];
    for await (const event of client.follow("run_t")) events.push(event);
    const reasoning = events.filter((e) => e.type === "reasoning");
    expect(reasoning.length).toBe(1);
    expect(reasoning[0]!.data.turn).toBe(1);
    expect(reasoning[0]!.data.text).toMatch(/^The user is asking about the largest city/);
    expect(events.map((e) => e.type).slice(0, 4)).toEqual(["started", "turn", "reasoning", "text"]);
  });
});
