// The gaps found by replaying recorded Messages API traffic (src/__fixtures__, see its README):
// extended thinking with tools, stop reasons, cache usage, error codes and retry hints. Each
// test serves what the API sent, from a local server, through the adapter.
import { readFileSync } from "node:fs";
import type { MessageCreateParams } from "@anthropic-ai/sdk/resources/messages";
import { createClient, memoryRunStore } from "@toolnexus/client";
import {
  type AssistantMessage,
  assertCheckpoint,
  CHECKPOINT_VERSION,
  type Checkpoint,
  pending,
} from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import {
  finishOf,
  type MockReply,
  type MockServer,
  mockServerPerTest,
  splitBytes,
} from "@toolnexus/provider-utils/testing";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ProviderError } from "./index.js";
import { type AnthropicOptions, anthropic } from "./model.js";
import type { MessagesRequestBody } from "./wire.js";

const KEY = "sk-ant-api03-TESTKEY0123456789";

function text(name: string): string {
  return readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), "utf8");
}

function json<T = Record<string, unknown>>(name: string): T {
  return JSON.parse(text(name)) as T;
}

/** A `.chunks.txt` recording (one event JSON a line) framed as the API sends it. */
function sse(name: string): string {
  return text(name)
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`)
    .join("");
}

const mock = mockServerPerTest(afterEach);

function serve(script: readonly MockReply[]): Promise<MockServer> {
  return mock.serve(script);
}

function model(options: Partial<AnthropicOptions> = {}) {
  return anthropic({
    model: "claude-sonnet-4-0",
    baseUrl: mock.server?.url ?? "",
    apiKey: KEY,
    retryBaseMs: 1,
    ...options,
  });
}

function sent(index: number): MessagesRequestBody {
  const body = mock.server?.requests[index]?.body as MessagesRequestBody;
  body satisfies MessageCreateParams;
  return body;
}

/**
 * A recorded non-streamed Message as the API streams the same reply: its blocks opened, filled by
 * deltas (`thinking_delta` then `signature_delta`, `text_delta`, `input_json_delta`) and stopped.
 */
function streamOf(message: Record<string, unknown>): string[] {
  const events: Record<string, unknown>[] = [
    { type: "message_start", message: { ...message, content: [], stop_reason: null } },
  ];
  (message.content as Record<string, unknown>[]).forEach((block, index) => {
    const delta = (d: Record<string, unknown>) =>
      events.push({ type: "content_block_delta", index, delta: d });
    if (block.type === "thinking") {
      events.push({
        type: "content_block_start",
        index,
        content_block: { type: "thinking", thinking: "", signature: "" },
      });
      delta({ type: "thinking_delta", thinking: block.thinking });
      delta({ type: "signature_delta", signature: block.signature });
    } else if (block.type === "text") {
      events.push({
        type: "content_block_start",
        index,
        content_block: { type: "text", text: "" },
      });
      delta({ type: "text_delta", text: block.text });
    } else {
      events.push({ type: "content_block_start", index, content_block: { ...block, input: {} } });
      delta({ type: "input_json_delta", partial_json: JSON.stringify(block.input) });
    }
    events.push({ type: "content_block_stop", index });
  });
  events.push(
    {
      type: "message_delta",
      delta: { stop_reason: message.stop_reason, stop_sequence: null },
      usage: { output_tokens: (message.usage as { output_tokens: number }).output_tokens },
    },
    { type: "message_stop" },
  );
  return events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
}

const ask = { messages: [{ role: "user" as const, content: "hi" }], tools: [] };

/** The recorded thinking-with-tools exchange (pydantic-ai's cassette of api.anthropic.com). */
const loop1 = json("anth-thinking-loop.1.json");
const loop2 = json("anth-thinking-loop.2.json");
const request2 = json<{ messages: unknown[]; thinking: unknown }>(
  "anth-thinking-loop.request-2.json",
);
const recordedThinking = (loop1.content as Record<string, unknown>[])[0]!;

describe("extended thinking", () => {
  it("keeps the thinking block with its signature in providerData.anthropic", async () => {
    await serve([{ json: loop1 }]);
    const response = await model().generate(ask);
    expect(response.providerData).toEqual({
      anthropic: {
        blocks: [
          {
            type: "thinking",
            thinking: recordedThinking.thinking,
            signature: recordedThinking.signature,
          },
        ],
      },
    });
    expect(response.text).toBe(
      "I'll help you find the largest city in your country. First, let me determine which country you're from.",
    );
    expect(response.toolCalls.map((call) => call.id)).toEqual(["toolu_01YGzqpRE16Vricda3Aqcejo"]);
  });

  it("assembles a streamed thinking block from thinking_delta and signature_delta", async () => {
    const body = sse("anth-thinking.chunks.txt");
    // Cut inside the signature and inside a thinking delta.
    const chunks = splitBytes(body, [
      { at: '"thinking_delta"', offset: 4 },
      { at: '"signature":"EvQB', offset: 16 },
    ]);
    await serve([{ chunks }]);
    const response = await finishOf(model().stream!(ask));
    const recorded = text("anth-thinking.chunks.txt");
    const signature = /"signature_delta","signature":"([^"]+)"/.exec(recorded)?.[1];
    expect(response.providerData).toEqual({
      anthropic: {
        blocks: [
          {
            type: "thinking",
            thinking:
              "The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185",
            signature,
          },
        ],
      },
    });
    expect(response.text).toBe("925 ÷ 5 = 185");
  });

  it("keeps redacted_thinking blocks, streamed or not, in order", async () => {
    // The recorded reply with a redacted block added after the thinking block, as the API
    // documents it ({ type: "redacted_thinking", data }).
    const redacted = {
      type: "redacted_thinking",
      data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP",
    };
    const reply = json("anth-thinking.json");
    (reply.content as unknown[]).splice(1, 0, redacted);
    const events = sse("anth-thinking.chunks.txt").replace(
      'event: content_block_start\ndata: {"type":"content_block_start","index":1,',
      `event: content_block_start\ndata: ${JSON.stringify({ type: "content_block_start", index: 1, content_block: redacted })}\n\nevent: content_block_stop\ndata: {"type":"content_block_stop","index":1}\n\nevent: content_block_start\ndata: {"type":"content_block_start","index":2,`,
    );
    await serve([{ json: reply }, { chunks: [events] }]);
    const plain = await model().generate(ask);
    const streamed = await finishOf(model().stream!(ask));
    for (const response of [plain, streamed]) {
      const blocks =
        (response.providerData?.anthropic as { blocks: unknown[] } | undefined)?.blocks ?? [];
      expect(blocks.map((block) => (block as { type: string }).type)).toEqual([
        "thinking",
        "redacted_thinking",
      ]);
      expect(blocks[1]).toEqual(redacted);
    }
  });

  it("sends the blocks back first in that assistant turn, only its own key", async () => {
    await serve([{ json: loop2 }]);
    const assistant: AssistantMessage = {
      role: "assistant",
      id: "msg_01WvueFjZVbHcj4H4zUzeGv2",
      content:
        "I'll help you find the largest city in your country. First, let me determine which country you're from.",
      toolCalls: [
        {
          id: "toolu_01YGzqpRE16Vricda3Aqcejo",
          name: "get_user_country",
          args: {},
          rawArgs: "{}",
        },
      ],
      providerData: {
        anthropic: { blocks: [{ ...recordedThinking }] },
        // Another adapter's data is never sent here.
        google: { thoughtSignature: "c2lnbmF0dXJl" },
      },
    };
    await model().generate({
      messages: [
        { role: "user", content: "What is the largest city in the user country?" },
        assistant,
        {
          role: "tool",
          callId: "toolu_01YGzqpRE16Vricda3Aqcejo",
          name: "get_user_country",
          content: "Mexico",
          isError: false,
        },
      ],
      tools: [],
    });
    // Exactly the turns the API accepted in the recording.
    expect(sent(0).messages.slice(1)).toEqual(request2.messages.slice(1));
    expect(JSON.stringify(sent(0))).not.toContain("thoughtSignature");
  });
});

describe("a thinking-with-tools loop", () => {
  const thinking = { type: "enabled", budget_tokens: 3000 };

  function country(suspend: boolean) {
    return nativeTool({
      name: "get_user_country",
      description: "",
      input: z.object({}).strict(),
      ctx: true,
      run: (_args, ctx) => {
        if (suspend && ctx.answer === undefined) {
          return pending({ kind: "input", prompt: "Which country are you in?" });
        }
        return String(ctx.answer?.data?.country ?? "Mexico");
      },
    });
  }

  it("sends the thinking block with its signature back on the second request", async () => {
    await serve([{ json: loop1 }, { json: loop2 }]);
    const client = createClient({
      model: model({ requestParams: { thinking } }),
      tools: [country(false)],
    });
    const result = await client.run("What is the largest city in the user country?");
    expect(result.status).toBe("done");
    if (result.status !== "done") return;
    expect(result.stopReason).toBe("stop");
    expect(result.finishReason).toBe("end_turn");
    expect(result.text).toContain("Mexico City");
    expect(sent(1).messages.slice(1)).toEqual(request2.messages.slice(1));
    expect((sent(1) as { thinking?: unknown }).thinking).toEqual(request2.thinking);
    // The transcript carries it too.
    expect((result.messages[1] as AssistantMessage).providerData).toEqual({
      anthropic: { blocks: [recordedThinking] },
    });
  });

  it("the same, streamed", async () => {
    await serve([{ chunks: streamOf(loop1) }, { chunks: streamOf(loop2) }]);
    const client = createClient({
      model: model({ requestParams: { thinking } }),
      tools: [country(false)],
    });
    let done: unknown;
    for await (const event of client.stream("What is the largest city in the user country?")) {
      if (event.type === "done") done = event.result;
    }
    expect(done).toMatchObject({ status: "done", stopReason: "stop" });
    expect(sent(1).stream).toBe(true);
    expect(sent(1).messages.slice(1)).toEqual(request2.messages.slice(1));
  });

  it("survives a durable halt and a resume in another client", async () => {
    await serve([{ json: loop1 }, { json: loop2 }]);
    const store = memoryRunStore();
    const first = createClient({
      model: model({ requestParams: { thinking } }),
      tools: [country(true)],
      runs: store,
    });
    const halted = await first.run("What is the largest city in the user country?");
    if (halted.status !== "pending") throw new Error("expected a halt");

    const second = createClient({
      model: model({ requestParams: { thinking } }),
      tools: [country(true)],
      runs: store,
    });
    const done = await second.resume({
      id: halted.pending.id,
      ok: true,
      data: { country: "Mexico" },
    });
    expect(done).toMatchObject({ status: "done", stopReason: "stop", finishReason: "end_turn" });
    // The durable run's stored result says so too.
    const stored = await second.getRun(done.runId);
    expect(stored?.result).toMatchObject({ stopReason: "stop", finishReason: "end_turn" });
    // The checkpoint went through the store as JSON text; the block came back intact.
    expect(sent(1).messages.slice(1)).toEqual(request2.messages.slice(1));
  });

  it("a checkpoint keeps providerData through a JSON round trip", async () => {
    await serve([{ json: loop1 }]);
    const client = createClient({ model: model(), tools: [country(true)] });
    const halted = await client.run("go");
    const checkpoint: Checkpoint = {
      version: CHECKPOINT_VERSION,
      runId: halted.runId,
      createdAt: new Date().toISOString(),
      messages: halted.messages,
      pending: [],
      turns: halted.turns,
      usage: halted.usage,
    };
    const stored: unknown = JSON.parse(JSON.stringify(checkpoint));
    assertCheckpoint(stored);
    expect((stored.messages[1] as AssistantMessage).providerData).toEqual({
      anthropic: { blocks: [recordedThinking] },
    });
  });
});

describe("stop reasons", () => {
  it("maps the recorded stop reasons, streamed or not", async () => {
    const cases: [MockReply, string, string][] = [
      [{ json: json("anth-refusal.json") }, "refusal", "refusal"],
      [{ chunks: [sse("anth-refusal.chunks.txt")] }, "refusal", "refusal"],
      [{ chunks: [text("anth-max-tokens-stream.sse")] }, "max_tokens", "length"],
      [{ json: loop1 }, "tool_use", "tool_calls"],
      [{ json: loop2 }, "end_turn", "stop"],
      [{ json: { ...loop2, stop_reason: "stop_sequence" } }, "stop_sequence", "stop"],
      [
        { json: { ...loop2, stop_reason: "model_context_window_exceeded" } },
        "model_context_window_exceeded",
        "length",
      ],
    ];
    for (const [reply, finishReason, stopReason] of cases) {
      await serve([reply]);
      const response =
        "chunks" in reply ? await finishOf(model().stream!(ask)) : await model().generate(ask);
      expect(response, finishReason).toMatchObject({ finishReason, stopReason });
      await mock.server?.close();
    }
  });

  it("a run cut at max_tokens ends done with stopReason length", async () => {
    await serve([{ chunks: [text("anth-max-tokens-stream.sse")] }]);
    const client = createClient({ model: model() });
    let result: unknown;
    for await (const event of client.stream("write taxes.txt")) {
      if (event.type === "done") result = event.result;
    }
    expect(result).toMatchObject({
      status: "done",
      stopReason: "length",
      finishReason: "max_tokens",
      text: expect.stringContaining("Let me do that for you now."),
    });
  });

  it("a refused run ends done with stopReason refusal and empty text", async () => {
    await serve([{ json: json("anth-refusal.json") }]);
    const result = await createClient({ model: model() }).run("something violative");
    expect(result).toMatchObject({ status: "done", text: "", stopReason: "refusal" });
  });
});

describe("usage with the prompt cache", () => {
  it("counts cache reads and writes into promptTokens, and thinking tokens", async () => {
    // The recorded reply, with a cache hit and a write as the API reports them.
    const reply = json("anth-thinking.json");
    reply.usage = {
      ...(reply.usage as object),
      cache_read_input_tokens: 2048,
      cache_creation_input_tokens: 512,
      output_tokens_details: { thinking_tokens: 20 },
    };
    await serve([{ json: reply }]);
    expect((await model().generate(ask)).usage).toEqual({
      promptTokens: 69 + 2048 + 512,
      completionTokens: 33,
      totalTokens: 69 + 2048 + 512 + 33,
      cacheReadTokens: 2048,
      cacheWriteTokens: 512,
      reasoningTokens: 20,
    });
  });

  it("streamed: cache counts from message_start, later counts from message_delta", async () => {
    const body = sse("anth-thinking.chunks.txt").replace(
      '"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"cache_creation"',
      '"cache_creation_input_tokens":100,"cache_read_input_tokens":4000,"cache_creation"',
    );
    // message_delta repeats the counts; make it leave the cache ones out, as older events do.
    const trimmed = body.replace(
      '"usage":{"input_tokens":69,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":53}',
      '"usage":{"input_tokens":69,"cache_creation_input_tokens":null,"cache_read_input_tokens":null,"output_tokens":53}',
    );
    expect(trimmed).not.toBe(body);
    await serve([{ chunks: [trimmed] }]);
    expect((await finishOf(model().stream!(ask))).usage).toEqual({
      promptTokens: 69 + 4000 + 100,
      completionTokens: 53,
      totalTokens: 69 + 4000 + 100 + 53,
      cacheReadTokens: 4000,
      cacheWriteTokens: 100,
    });
  });

  it("message_delta's input_tokens replaces message_start's", async () => {
    await serve([{ chunks: [sse("anth-message-delta-input-tokens.chunks.txt")] }]);
    expect((await finishOf(model().stream!(ask))).usage).toEqual({
      promptTokens: 61,
      completionTokens: 2,
      totalTokens: 63,
    });
  });
});

describe("errors and retry hints", () => {
  const errors = json<{
    anthropic: Record<string, { status: number; headers: Record<string, string>; body: unknown }>;
  }>("errors.json").anthropic;
  const reply = (name: string, headers: Record<string, string> = {}): MockReply => {
    const e = errors[name]!;
    return { status: e.status, headers: { ...e.headers, ...headers }, json: e.body };
  };

  it("401 with x-should-retry: false is not retried; its type is providerType", async () => {
    await serve([reply("authentication_401"), { json: loop2 }]);
    const error = await model()
      .generate(ask)
      .catch((thrown: unknown) => thrown);
    expect(mock.server?.requests).toHaveLength(1);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({
      status: 401,
      retryable: false,
      providerType: "authentication_error",
      providerCode: undefined,
      requestId: "req_011CVLou46LSJLFLPjsBqzuT",
    });
  });

  it("a prompt too long is an invalid_request_error with the API's message", async () => {
    await serve([reply("prompt_too_long_400")]);
    const error = await model()
      .generate(ask)
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({
      status: 400,
      providerType: "invalid_request_error",
      providerMessage: "prompt is too long: 214384 tokens > 200000 maximum",
    });
  });

  it("529 overloaded with x-should-retry: true is retried", async () => {
    await serve([reply("overloaded_529"), { json: loop2 }]);
    expect((await model().generate(ask)).text).toContain("Mexico City");
    expect(mock.server?.requests).toHaveLength(2);
  });

  it("a Retry-After longer than maxRetryDelayMs waits only that long", async () => {
    await serve([reply("rate_limit_429", { "retry-after": "3600" }), { json: loop2 }]);
    const started = Date.now();
    expect((await model({ maxRetryDelayMs: 5 }).generate(ask)).text).toContain("Mexico City");
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
