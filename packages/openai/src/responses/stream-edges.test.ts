// Responses API edges, served from a local server: a long run of small reasoning summary deltas
// (built in time linear in their length) and `function_call` items whose `arguments` a server
// sent as a parsed object (serialised back, as Chat Completions does, not lost).
import type { ModelRequest, ModelResponse, ModelStreamPart } from "@toolnexus/core";
import { mockServerPerTest, sseEvent } from "@toolnexus/provider-utils/testing";
import { afterEach, describe, expect, it } from "vitest";
import { openaiResponses } from "../index.js";
import { response } from "./test-fixtures.js";

const mock = mockServerPerTest(afterEach);
const model = () =>
  openaiResponses({
    model: "gpt-5-mini",
    baseUrl: `${mock.server?.url}/v1`,
    apiKey: "sk-test-responses",
    retryBaseMs: 1,
    retries: 0,
  });
const ASK: ModelRequest = { messages: [{ role: "user", content: "Compute it" }], tools: [] };
const usage = { promptTokens: 10, completionTokens: 5, totalTokens: 15 };

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

/** `text` cut into pieces of at most `size` characters, as a network delivers a big body. */
function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

/** A completed response whose output is the given items. */
function completed(output: Record<string, unknown>[]) {
  return { ...response({ id: "resp_edges", usage }), output };
}

describe("many reasoning summary deltas", () => {
  // 100,000 deltas of 40 bytes: 4 MB of summary. Copying the text so far at each delta (as the
  // adapter once did) is 200 GB of copying, minutes of CPU, far past the test's timeout;
  // collected and joined once, it is the body's parsing and little more. No duration asserted.
  it("joins 100,000 response.reasoning_summary_text.delta events into the reasoning", async () => {
    const count = 100_000;
    const piece = (i: number) => `${String(i).padStart(8, "0")}${"s".repeat(32)}`;
    const delta = (summary_index: number, text: string, n: number) =>
      sseEvent({
        type: "response.reasoning_summary_text.delta",
        item_id: "rs_1",
        output_index: 0,
        summary_index,
        delta: text,
        sequence_number: n,
        obfuscation: "x",
      });
    const events: string[] = [];
    for (let i = 0; i < count; i++) events.push(delta(0, piece(i), i));
    // A second summary part: its first delta carries the blank line between parts.
    events.push(delta(1, "second", count));
    events.push(
      sseEvent({
        type: "response.completed",
        sequence_number: count + 1,
        response: completed([]),
      }),
    );
    await mock.serve([{ chunks: pieces(events.join(""), 256 * 1024), chunkDelayMs: 0 }]);

    const seen = await parts(model().stream!(ASK));
    let expected = "";
    for (let i = 0; i < count; i++) expected += piece(i);
    expected += "\n\nsecond";
    const streamed = seen.flatMap((p) => (p.type === "reasoning" ? [p.delta] : []));
    expect(streamed.join("")).toBe(expected);
    const final = finishOf(seen);
    expect(final.reasoning?.length).toBe(expected.length);
    expect(final.reasoning).toBe(expected);
  });
});

describe("function_call arguments sent as an object", () => {
  const item = {
    type: "function_call",
    id: "fc_1",
    call_id: "call_1",
    name: "get_weather",
    status: "completed",
    arguments: { city: "SF" },
  };
  const expected = {
    id: "call_1",
    name: "get_weather",
    args: { city: "SF" },
    rawArgs: '{"city":"SF"}',
  };

  it("generate serialises them back", async () => {
    await mock.serve([{ json: completed([item]) }]);
    const result = await model().generate(ASK);
    expect(result.toolCalls).toEqual([expected]);
    expect(result.stopReason).toBe("tool_calls");
  });

  it("stream serialises them back from output_item.done", async () => {
    const body =
      sseEvent({ type: "response.output_item.done", output_index: 0, item, sequence_number: 0 }) +
      sseEvent({
        type: "response.completed",
        sequence_number: 1,
        response: completed([item]),
      });
    await mock.serve([{ chunks: [body] }]);
    const seen = await parts(model().stream!(ASK));
    expect(seen.flatMap((p) => (p.type === "tool_call" ? [p.call] : []))).toEqual([expected]);
    expect(finishOf(seen).toolCalls).toEqual([expected]);
  });

  it("an array given as arguments is kept as its JSON, with an argsError", async () => {
    await mock.serve([{ json: completed([{ ...item, arguments: ["SF"] }]) }]);
    const [call] = (await model().generate(ASK)).toolCalls;
    expect(call).toMatchObject({ rawArgs: '["SF"]', argsError: "arguments must be a JSON object" });
  });
});

describe("a function call announced and streamed, never done", () => {
  it("is emitted from its fragments at the terminal event when the final output lacks it", async () => {
    const added = {
      type: "function_call",
      id: "fc_9",
      call_id: "call_9",
      name: "get_weather",
      arguments: "",
    };
    const body =
      sseEvent({ type: "response.output_item.added", output_index: 0, item: added }) +
      sseEvent({
        type: "response.function_call_arguments.delta",
        item_id: "fc_9",
        output_index: 0,
        delta: '{"city":',
      }) +
      sseEvent({
        type: "response.function_call_arguments.delta",
        item_id: "fc_9",
        output_index: 0,
        delta: '"SF"}',
      }) +
      sseEvent({ type: "response.completed", response: completed([]) });
    await mock.serve([{ chunks: [body] }]);
    const seen = await parts(model().stream!(ASK));
    const expected = {
      id: "call_9",
      name: "get_weather",
      args: { city: "SF" },
      rawArgs: '{"city":"SF"}',
    };
    expect(seen.flatMap((p) => (p.type === "tool_call" ? [p.call] : []))).toEqual([expected]);
    const final = finishOf(seen);
    expect(final.toolCalls).toEqual([expected]);
    expect(final.stopReason).toBe("tool_calls");
  });

  it("is not emitted twice when the final output holds it", async () => {
    const item = {
      type: "function_call",
      id: "fc_8",
      call_id: "call_8",
      name: "get_weather",
      arguments: '{"city":"SF"}',
    };
    const body =
      sseEvent({
        type: "response.output_item.added",
        output_index: 0,
        item: { ...item, arguments: "" },
      }) + sseEvent({ type: "response.completed", response: completed([item]) });
    await mock.serve([{ chunks: [body] }]);
    const seen = await parts(model().stream!(ASK));
    expect(seen.filter((p) => p.type === "tool_call")).toHaveLength(0);
    expect(finishOf(seen).toolCalls.map((c) => c.id)).toEqual(["call_8"]);
  });
});
