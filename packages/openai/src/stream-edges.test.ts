// Chat Completions replies that would lose a tool call or an answer, served from a local server:
// a `tool_calls` entry without `function`, a stream whose chunks carry no choice, and argument
// fragments sent after the `finish_reason` chunk.
import type { ModelResponse, ModelStreamPart } from "@toolnexus/core";
import { ProviderError } from "@toolnexus/provider-utils";
import { mockServerPerTest, sseEvent } from "@toolnexus/provider-utils/testing";
import { afterEach, describe, expect, it } from "vitest";
import { openai } from "./model.js";
import { chunk, completion } from "./test-fixtures.js";

const mock = mockServerPerTest(afterEach);
const model = () =>
  openai({
    model: "gpt-4o-mini",
    baseUrl: mock.server?.url ?? "",
    apiKey: "sk-test-0123456789abcdef",
    retryBaseMs: 1,
    retries: 0,
  });
const ask = { messages: [{ role: "user" as const, content: "weather in SF?" }], tools: [] };

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

const DONE = "data: [DONE]\n\n";

describe("chat: malformed tool calls", () => {
  it("a tool_calls entry without a function is a provider_response error, not a dropped call", async () => {
    const reply = completion({
      toolCalls: [{ id: "call_1", name: "get_weather", arguments: '{"city":"SF"}' }],
    });
    const calls = reply.choices[0]!.message.tool_calls as unknown as Record<string, unknown>[];
    calls.push({ id: "call_2", type: "function" });
    await mock.serve([{ json: reply }]);
    const thrown = await model()
      .generate(ask)
      .catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(ProviderError);
    expect(thrown).toMatchObject({
      code: "provider_response",
      message: "openai: the response's choices[0].message.tool_calls[1] has no function object",
    });
  });
});

describe("chat stream: edges", () => {
  it("argument fragments after the finish_reason chunk still land in the call", async () => {
    const id = "chatcmpl-late";
    const body =
      sseEvent(
        chunk(id, {
          tool_calls: [
            {
              index: 0,
              id: "call_1",
              type: "function",
              function: { name: "get_weather", arguments: '{"city":' },
            },
          ],
        }),
      ) +
      sseEvent(chunk(id, {}, "tool_calls")) +
      sseEvent(chunk(id, { tool_calls: [{ index: 0, function: { arguments: '"SF"}' } }] })) +
      DONE;
    await mock.serve([{ chunks: [body] }]);
    const seen = await parts(model().stream!(ask));
    const expected = {
      id: "call_1",
      name: "get_weather",
      args: { city: "SF" },
      rawArgs: '{"city":"SF"}',
    };
    expect(seen.flatMap((p) => (p.type === "tool_call" ? [p.call] : []))).toEqual([expected]);
    expect(finishOf(seen).toolCalls).toEqual([expected]);
  });

  it("the calls of a stream closed after finish_reason, without [DONE], are complete", async () => {
    const id = "chatcmpl-nodone";
    const body =
      sseEvent(
        chunk(id, {
          tool_calls: [
            { index: 0, id: "call_1", type: "function", function: { name: "f", arguments: "{" } },
          ],
        }),
      ) +
      sseEvent(chunk(id, {}, "tool_calls")) +
      sseEvent(chunk(id, { tool_calls: [{ index: 0, function: { arguments: "}" } }] }));
    await mock.serve([{ chunks: [body] }]);
    const response = finishOf(await parts(model().stream!(ask)));
    expect(response.toolCalls.map((c) => [c.rawArgs, c.argsError])).toEqual([["{}", undefined]]);
  });

  for (const [name, body] of [
    ["choices: null, then [DONE]", `data: {"id":"chatcmpl-x","choices":null}\n\n${DONE}`],
    ["only [DONE]", DONE],
    ["only a usage chunk, then [DONE]", sseEvent(chunk("chatcmpl-u", undefined)) + DONE],
  ] as const) {
    it(`a stream whose chunks carry no choice is a provider_stream error (${name})`, async () => {
      await mock.serve([{ chunks: [body] }]);
      const thrown = await parts(model().stream!(ask)).catch((error: unknown) => error);
      expect(thrown).toBeInstanceOf(ProviderError);
      expect(thrown).toMatchObject({
        code: "provider_stream",
        message: "openai: the stream carried no choices[0]",
      });
    });
  }
});
