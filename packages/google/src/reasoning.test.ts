// Reasoning: Gemini's thought summaries (parts with `thought: true`, sent when
// `generationConfig.thinkingConfig.includeThoughts` is on) as the response's `reasoning` and as
// `reasoning` stream parts. The recorded replies (src/__fixtures__) with thought parts added as
// the Gemini API documents them, served from a local server.
import type { ModelRequest, ModelResponse, ModelStreamPart } from "@toolnexus/core";
import { mockServerPerTest } from "@toolnexus/provider-utils/testing";
import { afterEach, describe, expect, it } from "vitest";
import { google } from "./model.js";
import { fixture, sseOfChunks } from "./test-fixtures.js";

const mock = mockServerPerTest(afterEach);
const model = () =>
  google({
    model: "gemini-3-pro-preview",
    baseUrl: `${mock.server?.url}/v1beta`,
    apiKey: "AIzaSyTest-kit-0123456789abcdefghijklmn",
    retryBaseMs: 1,
    requestParams: { generationConfig: { thinkingConfig: { includeThoughts: true } } },
  });
const ASK: ModelRequest = { messages: [{ role: "user", content: "How many r's?" }], tools: [] };

interface Reply {
  candidates: { content: { parts: Record<string, unknown>[] } }[];
}

const SUMMARY_1 = "**Counting letters**\n\nI'm spelling out strawberry letter by letter.";
const SUMMARY_2 = " Three r's: one after t, two before y.";

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

describe("gemini reasoning", () => {
  it("thought parts are the reasoning, never the text; the signed parts kept as before", async () => {
    const reply = JSON.parse(fixture("google-text.json")) as Reply;
    const answer = { ...reply.candidates[0]!.content.parts[0]! };
    reply.candidates[0]!.content.parts.unshift({ text: SUMMARY_1, thought: true });
    await mock.serve([{ json: reply }]);
    const response = await model().generate(ASK);
    expect(response.reasoning).toBe(SUMMARY_1);
    expect(response.text).toBe(answer.text);
    // An unsigned thought summary is not sent back: providerData is what it was without it.
    expect(response.providerData).toEqual({ google: { parts: [answer] } });
    expect(mock.server?.requests[0]?.body).toMatchObject({
      generationConfig: { thinkingConfig: { includeThoughts: true } },
    });
  });

  it("streams each chunk's thought parts as reasoning, ahead of that chunk's text", async () => {
    const lines = fixture("google-text.chunks.txt")
      .split("\n")
      .filter((line) => line.trim() !== "");
    const first = JSON.parse(lines[0]!) as Reply;
    const thinking = structuredClone(first);
    thinking.candidates[0]!.content.parts = [{ text: SUMMARY_1, thought: true }];
    // The second summary piece arrives in the same chunk as the first answer text.
    first.candidates[0]!.content.parts.unshift({ text: SUMMARY_2, thought: true });
    const body = [JSON.stringify(thinking), JSON.stringify(first), ...lines.slice(1)].join("\n");
    await mock.serve([{ chunks: [sseOfChunks(body)] }]);
    const seen = await parts(model().stream!(ASK));
    // One network read: the two reasoning deltas come joined, still ahead of the text.
    expect(seen[0]).toEqual({ type: "reasoning", delta: SUMMARY_1 + SUMMARY_2 });
    expect(seen[1]?.type).toBe("text");
    expect(seen[1]?.type === "text" && seen[1].delta.startsWith("There are **3**")).toBe(true);
    const response = finishOf(seen);
    expect(response.reasoning).toBe(SUMMARY_1 + SUMMARY_2);
    expect(response.text).not.toContain("Counting letters");
  });

  it("a reply without thought parts has no reasoning", async () => {
    await mock.serve([{ json: JSON.parse(fixture("google-text.json")) }]);
    const response = await model().generate(ASK);
    expect("reasoning" in response).toBe(false);
  });
});
