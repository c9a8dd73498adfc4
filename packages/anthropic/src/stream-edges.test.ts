// Edge cases of Messages API replies, served from a local server: a long run of small
// `thinking_delta` events (the reasoning is built in time linear in its length), and `tool_use`
// blocks that are malformed (no id, never stopped, arguments for a block never opened), whose
// calls must be kept or the reply refused, never dropped while the turn says `tool_calls`.
import type { ModelResponse, ModelStreamPart } from "@toolnexus/core";
import { ProviderError } from "@toolnexus/provider-utils";
import { mockServerPerTest } from "@toolnexus/provider-utils/testing";
import { afterEach, describe, expect, it } from "vitest";
import { anthropic } from "./model.js";
import { event, message } from "./test-fixtures.js";

const mock = mockServerPerTest(afterEach);
const model = () =>
  anthropic({
    model: "claude-sonnet-4-5",
    baseUrl: mock.server?.url ?? "",
    apiKey: "sk-ant-api03-TESTKEY0123456789",
    retryBaseMs: 1,
    retries: 0,
  });
const ask = { messages: [{ role: "user" as const, content: "look it up" }], tools: [] };

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

/** `text` cut into pieces of at most `size` bytes, as a network delivers a big body. */
function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

const start = event({
  type: "message_start",
  message: { ...message({ usage: [10, 1] }), content: [], stop_reason: null },
});
const toolUseStop = event({
  type: "message_delta",
  delta: { stop_reason: "tool_use", stop_sequence: null, stop_details: null, container: null },
  usage: {
    input_tokens: 10,
    output_tokens: 5,
    cache_creation_input_tokens: null,
    cache_read_input_tokens: null,
    output_tokens_details: null,
    server_tool_use: null,
  },
});
const stop = event({ type: "message_stop" });

function toolUseStart(index: number, id = "toolu_01A09q90qw90lq917835lq9"): string {
  return event({
    type: "content_block_start",
    index,
    content_block: { type: "tool_use", id, name: "lookup", input: {}, caller: { type: "direct" } },
  });
}

function argsDelta(index: number, partial_json: string): string {
  return event({
    type: "content_block_delta",
    index,
    delta: { type: "input_json_delta", partial_json },
  });
}

describe("many thinking deltas", () => {
  // 100,000 deltas of 40 bytes: 4 MB of reasoning. Copying the text so far at each delta (as
  // the adapter once did) is 200 GB of copying, minutes of CPU, far past the test's timeout;
  // collected and joined once, it is the body's parsing and little more. No duration asserted.
  it("joins 100,000 thinking_delta events into the reasoning, each passed through once", async () => {
    const count = 100_000;
    const piece = (i: number) => `${String(i).padStart(8, "0")}${"r".repeat(32)}`;
    let body = start;
    body += event({
      type: "content_block_start",
      index: 0,
      content_block: { type: "thinking", thinking: "", signature: "" },
    });
    const deltas: string[] = [];
    for (let i = 0; i < count; i++) {
      deltas.push(
        event({
          type: "content_block_delta",
          index: 0,
          delta: { type: "thinking_delta", thinking: piece(i) },
        }),
      );
    }
    body += deltas.join("");
    body += event({
      type: "content_block_delta",
      index: 0,
      delta: { type: "signature_delta", signature: "EqQBCkgIBRABGAIiQL" },
    });
    body += event({ type: "content_block_stop", index: 0 });
    // A second block: its first text carries the blank line between blocks.
    body += event({
      type: "content_block_start",
      index: 1,
      content_block: { type: "thinking", thinking: "second", signature: "" },
    });
    body += event({
      type: "content_block_delta",
      index: 1,
      delta: { type: "signature_delta", signature: "sig2" },
    });
    body += event({ type: "content_block_stop", index: 1 });
    body += toolUseStop.replace('"tool_use"', '"end_turn"') + stop;
    await mock.serve([{ chunks: pieces(body, 256 * 1024), chunkDelayMs: 0 }]);

    const seen = await parts(model().stream!(ask));
    let expected = "";
    for (let i = 0; i < count; i++) expected += piece(i);
    expected += "\n\nsecond";
    const streamed = seen.flatMap((p) => (p.type === "reasoning" ? [p.delta] : []));
    expect(streamed.join("")).toBe(expected);
    const response = finishOf(seen);
    expect(response.reasoning?.length).toBe(expected.length);
    expect(response.reasoning).toBe(expected);
    const kept = response.providerData?.anthropic as { blocks?: { thinking?: string }[] };
    const blocks = kept.blocks ?? [];
    expect(blocks.map((b) => b.thinking?.length)).toEqual([count * 40, 6]);
  });
});

describe("malformed tool_use blocks", () => {
  it("a tool_use block without an id is kept, with a generated id", async () => {
    const reply = message({ toolUses: [{ id: "x", name: "lookup", input: { q: "sf" } }] });
    delete (reply.content[0] as { id?: string }).id;
    await mock.serve([{ json: reply }]);
    const response = await model().generate(ask);
    expect(response.toolCalls).toHaveLength(1);
    expect(response.toolCalls[0]).toMatchObject({
      name: "lookup",
      args: { q: "sf" },
      rawArgs: '{"q":"sf"}',
    });
    expect(response.toolCalls[0]?.id).toMatch(/^toolu_[0-9a-f]+$/);
    expect(response.toolCalls[0]?.argsError).toBeUndefined();
    expect(response.stopReason).toBe("tool_calls");
  });

  it("a streamed tool_use block without an id is kept, with a generated id", async () => {
    const body =
      start +
      toolUseStart(0, "") +
      argsDelta(0, '{"q":"sf"}') +
      event({ type: "content_block_stop", index: 0 }) +
      toolUseStop +
      stop;
    await mock.serve([{ chunks: [body] }]);
    const response = finishOf(await parts(model().stream!(ask)));
    expect(response.toolCalls).toHaveLength(1);
    expect(response.toolCalls[0]?.id).toMatch(/^toolu_[0-9a-f]+$/);
    expect(response.toolCalls[0]?.args).toEqual({ q: "sf" });
  });

  it("a tool_use block never stopped before message_stop is still emitted, whole", async () => {
    const body =
      start + toolUseStart(0) + argsDelta(0, '{"q":') + argsDelta(0, '"sf"}') + toolUseStop + stop;
    await mock.serve([{ chunks: [body] }]);
    const seen = await parts(model().stream!(ask));
    const calls = seen.flatMap((p) => (p.type === "tool_call" ? [p.call] : []));
    const expected = {
      id: "toolu_01A09q90qw90lq917835lq9",
      name: "lookup",
      args: { q: "sf" },
      rawArgs: '{"q":"sf"}',
    };
    expect(calls).toEqual([expected]);
    const response = finishOf(seen);
    expect(response.toolCalls).toEqual([expected]);
    expect(response.stopReason).toBe("tool_calls");
  });

  it("a tool_use block cut short before message_stop keeps its text, with an argsError", async () => {
    const body = start + toolUseStart(0) + argsDelta(0, '{"q":"s') + toolUseStop + stop;
    await mock.serve([{ chunks: [body] }]);
    const response = finishOf(await parts(model().stream!(ask)));
    expect(response.toolCalls).toHaveLength(1);
    expect(response.toolCalls[0]?.rawArgs).toBe('{"q":"s');
    expect(response.toolCalls[0]?.argsError).toMatch(/not valid JSON/);
  });

  it("a stream closed after the stop reason, a tool_use block open, still has the call", async () => {
    const body = start + toolUseStart(0) + argsDelta(0, '{"q":"sf"}') + toolUseStop;
    await mock.serve([{ chunks: [body] }]);
    const seen = await parts(model().stream!(ask));
    expect(seen.filter((p) => p.type === "tool_call")).toHaveLength(1);
    expect(finishOf(seen).toolCalls.map((c) => c.args)).toEqual([{ q: "sf" }]);
  });

  it("a tool_use block left open by a reply cut at max_tokens is no call: stopReason length", async () => {
    const cut = toolUseStop.replace('"tool_use"', '"max_tokens"');
    const body = start + toolUseStart(0) + argsDelta(0, '{"q":"s') + cut + stop;
    await mock.serve([{ chunks: [body] }]);
    const seen = await parts(model().stream!(ask));
    expect(seen.filter((p) => p.type === "tool_call")).toEqual([]);
    expect(finishOf(seen)).toMatchObject({
      toolCalls: [],
      finishReason: "max_tokens",
      stopReason: "length",
    });
  });

  it("input_json_delta for a block never opened is a provider_stream error", async () => {
    const body =
      start +
      argsDelta(5, '{"q":"sf"}') +
      event({ type: "content_block_stop", index: 5 }) +
      toolUseStop +
      stop;
    await mock.serve([{ chunks: [body] }]);
    const thrown = await parts(model().stream!(ask)).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(ProviderError);
    expect(thrown).toMatchObject({
      code: "provider_stream",
      message: "anthropic: an input_json_delta arrived for content block 5, which is not open",
    });
  });
});
