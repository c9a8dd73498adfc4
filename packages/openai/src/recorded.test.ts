// The gaps found by replaying recorded Chat Completions traffic (src/__fixtures__, see its
// README): stop reasons (refusal, length), cached and reasoning tokens, error codes, retry hints,
// per-request tool choice and token limit, and provider data that is never sent here.
import { readFileSync } from "node:fs";
import { createClient } from "@toolnexus/client";
import type { ToolSpec } from "@toolnexus/core";
import {
  finishOf,
  type MockReply,
  type MockServer,
  mockServerPerTest,
} from "@toolnexus/provider-utils/testing";
import type { ChatCompletionCreateParams } from "openai/resources/chat/completions";
import { afterEach, describe, expect, it } from "vitest";
import { ProviderError } from "./index.js";
import { type OpenAIOptions, openai } from "./model.js";
import type { ChatRequestBody } from "./wire.js";

const KEY = "sk-test-0123456789abcdefT123";

function text(name: string): string {
  return readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), "utf8");
}

function json<T = Record<string, unknown>>(name: string): T {
  return JSON.parse(text(name)) as T;
}

const mock = mockServerPerTest(afterEach);

function serve(script: readonly MockReply[]): Promise<MockServer> {
  return mock.serve(script);
}

function model(options: Partial<OpenAIOptions> = {}) {
  return openai({
    model: "gpt-4o-2024-08-06",
    baseUrl: mock.server?.url ?? "",
    apiKey: KEY,
    retryBaseMs: 1,
    ...options,
  });
}

function sent(index: number): ChatRequestBody {
  const body = mock.server?.requests[index]?.body as ChatRequestBody;
  body satisfies ChatCompletionCreateParams;
  return body;
}

const ask = { messages: [{ role: "user" as const, content: "hi" }], tools: [] };

const weather: ToolSpec = {
  name: "get_weather",
  description: "Current weather for a city",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

describe("stop reasons", () => {
  it("maps the recorded finish reasons, and a refusal on the message", async () => {
    const cases: [MockReply, string, string][] = [
      [{ json: json("oai-refusal.json") }, "stop", "refusal"],
      [{ chunks: [text("oai-stream-refusal.sse")] }, "stop", "refusal"],
      [{ json: json("oai-length.json") }, "length", "length"],
      [{ chunks: [text("oai-stream-length.sse")] }, "length", "length"],
      [{ json: json("oai-tool.json") }, "tool_calls", "tool_calls"],
      [{ json: json("oai-text.json") }, "stop", "stop"],
    ];
    for (const [reply, finishReason, stopReason] of cases) {
      await serve([reply]);
      const response =
        "chunks" in reply ? await finishOf(model().stream!(ask)) : await model().generate(ask);
      expect(response, `${finishReason} ${stopReason}`).toMatchObject({
        finishReason,
        stopReason,
      });
      await mock.server?.close();
    }
  });

  it("content_filter, and any tool call is tool_calls whatever the finish reason", async () => {
    const filtered = json("oai-text.json");
    const choice = (filtered.choices as Record<string, unknown>[])[0]!;
    choice.finish_reason = "content_filter";
    const called = json("oai-tool.json");
    (called.choices as Record<string, unknown>[])[0]!.finish_reason = "stop";
    await serve([{ json: filtered }, { json: called }]);
    expect((await model().generate(ask)).stopReason).toBe("content_filter");
    expect(await model().generate(ask)).toMatchObject({
      finishReason: "stop",
      stopReason: "tool_calls",
    });
  });

  it("a refused run is done with stopReason refusal; a cut one with length", async () => {
    await serve([{ json: json("oai-refusal.json") }, { chunks: [text("oai-stream-length.sse")] }]);
    const client = createClient({ model: model() });
    expect(await client.run("do it")).toMatchObject({
      status: "done",
      text: "I'm very sorry, but I can't assist with that.",
      stopReason: "refusal",
      finishReason: "stop",
    });
    let streamed: unknown;
    for await (const event of client.stream("more")) {
      if (event.type === "done") streamed = event.result;
    }
    expect(streamed).toMatchObject({
      status: "done",
      text: '{"',
      stopReason: "length",
      finishReason: "length",
    });
  });
});

describe("usage details", () => {
  it("reasoning tokens from a recorded stream's last chunk", async () => {
    const body = text("oai-azure-stream.chunks.txt")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => `data: ${line}\n\n`);
    await serve([{ chunks: [...body, "data: [DONE]\n\n"] }]);
    expect((await finishOf(model().stream!(ask))).usage).toEqual({
      promptTokens: 15,
      completionTokens: 78,
      totalTokens: 93,
      reasoningTokens: 64,
    });
  });

  it("cached prompt tokens", async () => {
    // The recorded completion with a prompt-cache hit, as the API reports it.
    const reply = json("oai-text.json");
    const usage = reply.usage as Record<string, Record<string, number>>;
    usage.prompt_tokens_details!.cached_tokens = 12;
    await serve([{ json: reply }]);
    expect((await model().generate(ask)).usage).toEqual({
      promptTokens: 16,
      completionTokens: 363,
      totalTokens: 379,
      cacheReadTokens: 12,
    });
  });
});

describe("errors and retry hints", () => {
  const errors = json<{
    openai: Record<string, { status: number; headers: Record<string, string>; body: unknown }>;
  }>("errors.json").openai;
  const reply = (name: string, headers: Record<string, string> = {}): MockReply => {
    const e = errors[name]!;
    return { status: e.status, headers: { ...e.headers, ...headers }, json: e.body };
  };

  it("a context too long: providerCode context_length_exceeded", async () => {
    await serve([reply("context_length_400")]);
    const error = await model()
      .generate(ask)
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({
      status: 400,
      retryable: false,
      providerType: "invalid_request_error",
      providerCode: "context_length_exceeded",
    });
  });

  it("a bad key: providerCode invalid_api_key, never retried", async () => {
    await serve([reply("invalid_api_key_401")]);
    const error = await model()
      .generate(ask)
      .catch((thrown: unknown) => thrown);
    expect(mock.server?.requests).toHaveLength(1);
    expect(error).toMatchObject({
      status: 401,
      providerCode: "invalid_api_key",
      requestId: "req_7f3c2b1a0e9d8c7b6a5f4e3d2c1b0a99",
    });
  });

  it("a 500 without a code has none; an unsupported parameter has its own", async () => {
    await serve([reply("server_error_500"), reply("unsupported_parameter_400")]);
    const first = await model({ retries: 0 })
      .generate(ask)
      .catch((thrown: unknown) => thrown);
    const second = await model({ retries: 0 })
      .generate(ask)
      .catch((thrown: unknown) => thrown);
    expect(first).toMatchObject({ status: 500, providerType: "server_error" });
    expect((first as ProviderError).providerCode).toBeUndefined();
    expect(second).toMatchObject({ providerCode: "unsupported_parameter" });
  });

  it("a 429 waits retry-after-ms rather than Retry-After; x-should-retry: false stops", async () => {
    await serve([
      reply("rate_limit_429", { "retry-after": "3600", "retry-after-ms": "5" }),
      { json: json("oai-text.json") },
    ]);
    const started = Date.now();
    expect((await model().generate(ask)).finishReason).toBe("stop");
    expect(Date.now() - started).toBeLessThan(10_000);
    await mock.server?.close();

    await serve([
      reply("rate_limit_429", { "x-should-retry": "false" }),
      { json: json("oai-text.json") },
    ]);
    const error = await model()
      .generate(ask)
      .catch((thrown: unknown) => thrown);
    expect(mock.server?.requests).toHaveLength(1);
    expect(error).toMatchObject({
      status: 429,
      retryable: false,
      providerCode: "rate_limit_exceeded",
    });
  });

  it("the rate-limit headers are on the error", async () => {
    await serve([reply("rate_limit_429")]);
    const error = (await model({ retries: 0 })
      .generate(ask)
      .catch((thrown: unknown) => thrown)) as ProviderError;
    expect(error.responseHeaders?.["x-ratelimit-reset-tokens"]).toBe("6m0s");
    expect(error.retryAfterMs).toBe(1000);
  });
});

describe("requests", () => {
  it("never sends another provider's data of an assistant turn", async () => {
    await serve([{ json: json("oai-text.json") }]);
    await model().generate({
      messages: [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          id: "msg_1",
          content: "Hello.",
          providerData: {
            anthropic: { blocks: [{ type: "thinking", thinking: "hm", signature: "c2ln" }] },
          },
        },
        { role: "user", content: "again" },
      ],
      tools: [],
    });
    expect(sent(0).messages).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "Hello." },
      { role: "user", content: "again" },
    ]);
    expect(mock.server?.requests[0]?.rawBody).not.toContain("c2ln");
  });

  it("a request's toolChoice and maxTokens win over requestParams", async () => {
    await serve([{ json: json("oai-tool.json") }]);
    const cases = [
      ["auto", "auto"],
      ["none", "none"],
      ["required", "required"],
      [{ name: "get_weather" }, { type: "function", function: { name: "get_weather" } }],
    ] as const;
    for (const [choice, wire] of cases) {
      await model({ requestParams: { tool_choice: "none", max_tokens: 9 } }).generate({
        ...ask,
        tools: [weather],
        toolChoice: choice,
        maxTokens: 100,
      });
      const body = sent((mock.server?.requests.length ?? 1) - 1);
      expect(body.tool_choice).toEqual(wire);
      expect(body.max_tokens).toBe(100);
    }
    // Without tools there is no tool_choice to send.
    await model().generate({ ...ask, toolChoice: "required" });
    expect(sent(4).tool_choice).toBeUndefined();
  });

  it("api.openai.com gets max_completion_tokens (its reasoning models reject max_tokens)", async () => {
    const bodies: unknown[] = [];
    const fetch = async (_url: string, init: RequestInit) => {
      bodies.push(JSON.parse(String(init.body)));
      return new Response(text("oai-text.json"), {
        headers: { "content-type": "application/json" },
      });
    };
    await openai({ model: "o3-mini", apiKey: KEY, fetch }).generate({ ...ask, maxTokens: 50 });
    expect(bodies[0]).toMatchObject({ max_completion_tokens: 50 });
    expect(bodies[0]).not.toHaveProperty("max_tokens");
  });
});
