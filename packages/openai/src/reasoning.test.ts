// Reasoning from Chat Completions servers that add it to the message or the stream delta:
// `reasoning_content` (DeepSeek, vLLM) or `reasoning` (OpenRouter, newer vLLM, Ollama). Payloads
// shaped as those servers send them, served from a local server.
import type { ModelResponse, ModelStreamPart } from "@toolnexus/core";
import { mockServerPerTest } from "@toolnexus/provider-utils/testing";
import { afterEach, describe, expect, it } from "vitest";
import { openai } from "./model.js";

const mock = mockServerPerTest(afterEach);
const model = () =>
  openai({
    model: "deepseek-reasoner",
    baseUrl: mock.server?.url ?? "",
    apiKey: "sk-test-0123456789abcdef",
    retryBaseMs: 1,
  });
const ask = {
  messages: [{ role: "user" as const, content: "9.11 or 9.8: which is greater?" }],
  tools: [],
};

/** A completion whose message carries the given extra fields. */
function completion(message: Record<string, unknown>, finish = "stop") {
  return {
    id: "930c60df-bf64-41c9-a88e-3ec75f81e00e",
    object: "chat.completion",
    created: 1_737_000_000,
    model: "deepseek-reasoner",
    choices: [
      {
        index: 0,
        message: { role: "assistant", ...message },
        logprobs: null,
        finish_reason: finish,
      },
    ],
    usage: {
      prompt_tokens: 17,
      completion_tokens: 120,
      total_tokens: 137,
      completion_tokens_details: { reasoning_tokens: 96 },
    },
  };
}

/** An SSE body of chunks with the given deltas, then a finish chunk and `[DONE]`. */
function stream(deltas: Record<string, unknown>[]): string {
  const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
    id: "chatcmpl-reason-1",
    object: "chat.completion.chunk",
    created: 1_737_000_000,
    model: "deepseek-reasoner",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const events = [...deltas.map((d) => chunk(d, null)), chunk({ content: "" }, "stop")];
  return `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("")}data: [DONE]\n\n`;
}

async function parts(source: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const seen: ModelStreamPart[] = [];
  for await (const part of source) seen.push(part);
  return seen;
}

function finishOf(seen: ModelStreamPart[]): ModelResponse {
  const last = seen.at(-1);
  if (last?.type !== "finish") throw new Error("no finish part");
  return last.response;
}

describe("chat completions reasoning", () => {
  it("reads message.reasoning_content (DeepSeek), with a tool call", async () => {
    await mock.serve([
      {
        json: completion(
          {
            content: null,
            reasoning_content: "The user wants a comparison; 9.8 is 9.80, which beats 9.11.",
            tool_calls: [
              {
                id: "call_0_1a2b",
                type: "function",
                function: { name: "compare", arguments: '{"a":9.11,"b":9.8}' },
              },
            ],
          },
          "tool_calls",
        ),
      },
    ]);
    const response = await model().generate(ask);
    expect(response.reasoning).toBe("The user wants a comparison; 9.8 is 9.80, which beats 9.11.");
    expect(response.text).toBe("");
    expect(response.toolCalls.map((call) => call.name)).toEqual(["compare"]);
    expect(response.providerData).toBeUndefined();
  });

  it("reads message.reasoning (OpenRouter), and only one of the two when a server sends both", async () => {
    await mock.serve([
      {
        json: completion({
          content: "9.8 is greater.",
          reasoning: "Compare the tenths: 8 > 1.",
          reasoning_details: [
            {
              type: "reasoning.text",
              text: "Compare the tenths: 8 > 1.",
              format: "unknown",
              index: 0,
            },
          ],
        }),
      },
      {
        json: completion({
          content: "9.8",
          reasoning_content: "Same thought.",
          reasoning: "Same thought.",
        }),
      },
      { json: completion({ content: "9.8", reasoning_content: null, reasoning: null }) },
    ]);
    const openRouter = await model().generate(ask);
    expect(openRouter.reasoning).toBe("Compare the tenths: 8 > 1.");
    expect(openRouter.text).toBe("9.8 is greater.");
    expect((await model().generate(ask)).reasoning).toBe("Same thought.");
    expect("reasoning" in (await model().generate(ask))).toBe(false);
  });

  it("streams delta.reasoning_content as reasoning parts before the answer (DeepSeek)", async () => {
    await mock.serve([
      {
        chunks: [
          stream([
            { role: "assistant", content: null, reasoning_content: "" },
            { reasoning_content: "9.11 has tenths 1;" },
            { reasoning_content: " 9.8 has tenths 8." },
            { content: "9.8", reasoning_content: null },
            { content: " is greater." },
          ]),
        ],
      },
    ]);
    const seen = await parts(model().stream!(ask));
    expect(seen.filter((p) => p.type !== "finish")).toEqual([
      // Deltas of one network chunk come joined, reasoning first.
      { type: "reasoning", delta: "9.11 has tenths 1; 9.8 has tenths 8." },
      { type: "text", delta: "9.8 is greater." },
    ]);
    const response = finishOf(seen);
    expect(response.reasoning).toBe("9.11 has tenths 1; 9.8 has tenths 8.");
    expect(response.text).toBe("9.8 is greater.");
  });

  it("streams delta.reasoning (OpenRouter, vLLM) and reads a delta carrying both fields once", async () => {
    await mock.serve([
      {
        chunks: [
          stream([
            { role: "assistant", content: "", reasoning: "Tenths:" },
            { content: "", reasoning: " 8 > 1.", reasoning_content: " 8 > 1." },
            { content: "9.8" },
          ]),
        ],
      },
    ]);
    const seen = await parts(model().stream!(ask));
    // Read once: the delta carrying both fields is not doubled.
    expect(seen.filter((p) => p.type === "reasoning").map((p) => p.delta)).toEqual([
      "Tenths: 8 > 1.",
    ]);
    expect(finishOf(seen).reasoning).toBe("Tenths: 8 > 1.");
    expect(finishOf(seen).text).toBe("9.8");
  });
});
