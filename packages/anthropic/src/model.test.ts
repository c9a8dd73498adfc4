import type {
  MessageCreateParams,
  MessageCreateParamsNonStreaming,
  MessageCreateParamsStreaming,
} from "@anthropic-ai/sdk/resources/messages";
import type { Model, ModelRequest, ModelStreamPart, ToolSpec } from "@toolnexus/core";
import { ProviderError } from "@toolnexus/provider-utils";
import {
  collectParts,
  type MockHandler,
  type MockReply,
  type MockServer,
  mockServerPerTest,
  rejectionOf,
  splitBytes,
  streamOf,
} from "@toolnexus/provider-utils/testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type AnthropicOptions, anthropic } from "./model.js";
import { event, message, streamBody } from "./test-fixtures.js";
import type { MessagesRequestBody } from "./wire.js";

const KEY = "sk-ant-api03-TESTKEY0123456789";
const mock = mockServerPerTest(afterEach);

beforeEach(() => {
  // The machine's own variables must not leak into these tests.
  vi.stubEnv("ANTHROPIC_API_KEY", "");
  vi.stubEnv("ANTHROPIC_BASE_URL", "");
});

afterEach(() => {
  vi.unstubAllEnvs();
});

function serve(script: readonly MockReply[]): Promise<MockServer> {
  return mock.serve(script);
}

/** Answers "ok", as a stream when the request asks for one. */
async function serveOk(): Promise<MockServer> {
  const handler: MockHandler = (request) =>
    (request.body as MessagesRequestBody).stream === true
      ? { chunks: [streamBody({ text: ["ok"] })] }
      : { json: message({ text: "ok" }) };
  return mock.serve(handler);
}

function model(url: string, options: Partial<AnthropicOptions> = {}): Model {
  return anthropic({
    model: "claude-sonnet-4-5",
    baseUrl: url,
    apiKey: KEY,
    retryBaseMs: 5,
    ...options,
  });
}

const weather: ToolSpec = {
  name: "get_weather",
  description: "Current weather for a city",
  inputSchema: {
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"],
    additionalProperties: false,
  },
};

const ask: ModelRequest = {
  messages: [
    { role: "system", content: "Be brief." },
    { role: "user", content: "Weather in Paris?" },
  ],
  tools: [weather],
};

const expectedTools = [
  {
    name: "get_weather",
    description: "Current weather for a city",
    input_schema: {
      type: "object" as const,
      properties: { city: { type: "string" } },
      required: ["city"],
      additionalProperties: false,
    },
  },
];

/** The recorded body, typed as what the adapter sends and checked against the SDK's types. */
function sentBody(index = 0): MessagesRequestBody {
  const body = mock.server?.requests[index]?.body as MessagesRequestBody;
  body satisfies MessageCreateParams;
  return body;
}

describe("anthropic generate", () => {
  it("POSTs /v1/messages with x-api-key, anthropic-version and the request", async () => {
    const { requests, url } = await serve([
      { json: message({ text: "Sunny, 21°C.", usage: [42, 7] }) },
    ]);
    const response = await model(url).generate(ask);

    expect(requests).toHaveLength(1);
    const request = requests[0];
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe("/v1/messages");
    expect(request?.headers["x-api-key"]).toBe(KEY);
    expect(request?.headers["anthropic-version"]).toBe("2023-06-01");
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.headers.authorization).toBeUndefined();
    const expected = {
      model: "claude-sonnet-4-5",
      max_tokens: 4096,
      system: "Be brief.",
      messages: [{ role: "user", content: "Weather in Paris?" }],
      tools: expectedTools,
    } satisfies MessageCreateParamsNonStreaming;
    expect(sentBody()).toEqual(expected);

    expect(response).toEqual({
      id: "msg_01XFDUDYJgAACzvnptvVoYEL",
      text: "Sunny, 21°C.",
      toolCalls: [],
      usage: { promptTokens: 42, completionTokens: 7, totalTokens: 49 },
      finishReason: "end_turn",
      stopReason: "stop",
    });
  });

  it("reads tool_use blocks as tool calls next to the text", async () => {
    const { url } = await serve([
      {
        json: message({
          id: "msg_tools",
          text: "I'll check both.",
          toolUses: [
            { id: "toolu_01A", name: "get_weather", input: { city: "Paris" } },
            { id: "toolu_01B", name: "get_weather", input: { city: "Zürich", units: "c" } },
          ],
          usage: [100, 40],
        }),
      },
    ]);
    const response = await model(url).generate(ask);
    expect(response).toEqual({
      id: "msg_tools",
      text: "I'll check both.",
      toolCalls: [
        {
          id: "toolu_01A",
          name: "get_weather",
          args: { city: "Paris" },
          rawArgs: '{"city":"Paris"}',
        },
        {
          id: "toolu_01B",
          name: "get_weather",
          args: { city: "Zürich", units: "c" },
          rawArgs: '{"city":"Zürich","units":"c"}',
        },
      ],
      usage: { promptTokens: 100, completionTokens: 40, totalTokens: 140 },
      finishReason: "tool_use",
      stopReason: "tool_calls",
    });
  });

  it("sends tool results back as tool_result blocks in one user turn", async () => {
    const { url } = await serve([{ json: message({ text: "Both done." }) }]);
    await model(url).generate({
      tools: [weather],
      messages: [
        { role: "user", content: "Weather in Paris and Oslo?" },
        {
          role: "assistant",
          id: "msg_1",
          content: "",
          toolCalls: [
            {
              id: "toolu_1",
              name: "get_weather",
              args: { city: "Paris" },
              rawArgs: '{"city":"Paris"}',
            },
            {
              id: "toolu_2",
              name: "get_weather",
              args: { city: "Oslo" },
              rawArgs: '{"city":"Oslo"}',
            },
          ],
        },
        { role: "tool", callId: "toolu_1", name: "get_weather", content: "21°C", isError: false },
        { role: "tool", callId: "toolu_2", name: "get_weather", content: "timeout", isError: true },
      ],
    });
    expect(sentBody().messages).toEqual([
      { role: "user", content: "Weather in Paris and Oslo?" },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
          { type: "tool_use", id: "toolu_2", name: "get_weather", input: { city: "Oslo" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "21°C", is_error: false },
          { type: "tool_result", tool_use_id: "toolu_2", content: "timeout", is_error: true },
        ],
      },
    ]);
  });

  it("uses maxTokens, merges requestParams and the caller's headers", async () => {
    const { requests, url } = await serve([{ json: message({ text: "ok" }) }]);
    await model(`${url}/v1/`, {
      maxTokens: 512,
      headers: { "anthropic-beta": "token-efficient-tools-2025-02-19" },
      requestParams: { stop_sequences: ["END"], tool_choice: { type: "any" } },
    }).generate(ask);
    expect(requests[0]?.path).toBe("/v1/messages");
    expect(requests[0]?.headers["anthropic-beta"]).toBe("token-efficient-tools-2025-02-19");
    const expected = {
      model: "claude-sonnet-4-5",
      max_tokens: 512,
      system: "Be brief.",
      messages: [{ role: "user", content: "Weather in Paris?" }],
      tools: expectedTools,
      stop_sequences: ["END"],
      tool_choice: { type: "any" },
    } satisfies MessageCreateParamsNonStreaming;
    expect(sentBody()).toEqual(expected);
  });
});

describe("anthropic API key", () => {
  it("reads ANTHROPIC_BASE_URL, else calls api.anthropic.com", async () => {
    vi.stubEnv("ANTHROPIC_API_KEY", "sk-ant-1111");
    const urls: string[] = [];
    const fetch = vi.fn(async (input: string, _init: RequestInit) => {
      urls.push(input);
      return Response.json(message({ text: "ok" }));
    });
    await anthropic({ model: "m", fetch }).generate(ask);
    vi.stubEnv("ANTHROPIC_BASE_URL", "https://gateway.example/anthropic");
    await anthropic({ model: "m", fetch }).generate(ask);
    expect(urls).toEqual([
      "https://api.anthropic.com/v1/messages",
      "https://gateway.example/anthropic/v1/messages",
    ]);
  });

  it("rejects a bad maxTokens at construction", () => {
    expect(() => anthropic({ model: "m", maxTokens: 0 })).toThrow(/maxTokens/);
    expect(() => anthropic({ model: "m", maxTokens: 1.5 })).toThrow(/maxTokens/);
  });
});

// The generic key and header rules are the adapter kit's option scenarios; this is Anthropic's.
describe("anthropic headers", () => {
  it("the user's anthropic-version wins whatever its case", async () => {
    const { requests, url } = await serveOk();
    await model(url, { headers: { "Anthropic-Version": "2099-01-01" } }).generate(ask);
    expect(requests[0]?.headers["anthropic-version"]).toBe("2099-01-01");
  });
});

describe("anthropic retries and failures", () => {
  it("500 and 529 are retried; when retries run out the error carries status and message", async () => {
    const overloaded: MockReply = {
      status: 529,
      json: {
        type: "error",
        error: { type: "overloaded_error", message: "Overloaded" },
        request_id: null,
      },
    };
    const internal: MockReply = {
      status: 500,
      json: {
        type: "error",
        error: { type: "api_error", message: "Internal server error" },
        request_id: null,
      },
    };
    const { requests, url } = await serve([
      internal,
      overloaded,
      { json: message({ text: "ok" }) },
    ]);
    expect((await model(url).generate(ask)).text).toBe("ok");
    expect(requests).toHaveLength(3);

    await mock.server?.close();
    const again = await serve([overloaded]);
    const error = await rejectionOf(model(again.url, { retries: 1 }).generate(ask));
    expect(again.requests).toHaveLength(2);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({
      status: 529,
      provider: "anthropic",
      providerType: "overloaded_error",
      providerMessage: "Overloaded",
    });
  });
});

describe("anthropic stream", () => {
  it("streams text deltas, then finish with usage from message_start and message_delta", async () => {
    const { url } = await serve([
      { chunks: [streamBody({ text: ["Hel", "lo", " wörld"], usage: [25, 15] })] },
    ]);
    const parts = await collectParts(streamOf(model(url), ask));
    const expected = {
      model: "claude-sonnet-4-5",
      max_tokens: 4096,
      system: "Be brief.",
      messages: [{ role: "user", content: "Weather in Paris?" }],
      tools: expectedTools,
      stream: true,
    } satisfies MessageCreateParamsStreaming;
    expect(sentBody()).toEqual(expected);
    expect(parts).toEqual([
      // The three deltas arrived in one network chunk: one part (coalesceDeltas).
      { type: "text", delta: "Hello wörld" },
      {
        type: "finish",
        response: {
          id: "msg_01XFDUDYJgAACzvnptvVoYEL",
          text: "Hello wörld",
          toolCalls: [],
          usage: { promptTokens: 25, completionTokens: 15, totalTokens: 40 },
          finishReason: "end_turn",
          stopReason: "stop",
        },
      },
    ]);
  });

  it("assembles tool calls from input_json_delta split mid-key, mid-escape and mid-UTF-8", async () => {
    const body = streamBody({
      id: "msg_split",
      text: ["Checking…"],
      toolUses: [
        {
          id: "toolu_paris",
          name: "get_weather",
          fragments: ['{"ci', 'ty": "Paris \\', '"Rive Gauche\\""', "}"],
        },
        {
          id: "toolu_zurich",
          name: "get_weather",
          fragments: ['{"city": "Zürich \ud83d', '\ude00", "note": "ünïcødé €"}'],
        },
      ],
      usage: [30, 20],
    });
    const chunks = splitBytes(body, [
      { at: "…", offset: 1 },
      { at: "event:", offset: 3 },
      { at: '"ci', offset: 2 },
      { at: "ü", offset: 1 },
      { at: "ünïcødé", offset: 1 },
      { at: "€", offset: 2 },
      { at: "message_stop", offset: 4 },
    ]);
    const { url } = await serve([{ chunks, chunkDelayMs: 10 }]);
    const parts = await collectParts(streamOf(model(url), ask));

    const calls = [
      {
        id: "toolu_paris",
        name: "get_weather",
        args: { city: 'Paris "Rive Gauche"' },
        rawArgs: '{"city":"Paris \\"Rive Gauche\\""}',
      },
      {
        id: "toolu_zurich",
        name: "get_weather",
        args: { city: "Zürich 😀", note: "ünïcødé €" },
        rawArgs: '{"city":"Zürich 😀","note":"ünïcødé €"}',
      },
    ];
    expect(parts).toEqual([
      { type: "text", delta: "Checking…" },
      { type: "tool_call", call: calls[0] },
      { type: "tool_call", call: calls[1] },
      {
        type: "finish",
        response: {
          id: "msg_split",
          text: "Checking…",
          toolCalls: calls,
          usage: { promptTokens: 30, completionTokens: 20, totalTokens: 50 },
          finishReason: "tool_use",
          stopReason: "tool_calls",
        },
      },
    ]);
  });

  it("a tool call without input (no deltas) has empty args", async () => {
    const { url } = await serve([
      { chunks: [streamBody({ toolUses: [{ id: "toolu_1", name: "now", fragments: [] }] })] },
    ]);
    const parts = await collectParts(streamOf(model(url), ask));
    expect(parts.filter((p) => p.type === "tool_call")).toEqual([
      { type: "tool_call", call: { id: "toolu_1", name: "now", args: {}, rawArgs: "{}" } },
    ]);
  });

  it("an error event is a ProviderError with the provider's type and message", async () => {
    const body = streamBody({ text: ["Hi"] });
    const cut = body.indexOf("event: content_block_stop");
    const { url } = await serve([
      {
        chunks: [
          body.slice(0, cut),
          event({
            type: "error",
            error: { type: "overloaded_error", message: "Overloaded" },
            request_id: null,
          }),
        ],
      },
    ]);
    const parts: ModelStreamPart[] = [];
    const error = await rejectionOf(
      (async () => {
        for await (const part of streamOf(model(url), ask)) parts.push(part);
      })(),
    );
    expect(parts).toEqual([{ type: "text", delta: "Hi" }]);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({
      code: "provider_stream",
      providerType: "overloaded_error",
      providerMessage: "Overloaded",
      retryable: true,
    });
  });

  it("text that came in the same network chunk as an error event still reaches the reader", async () => {
    const body = streamBody({ text: ["Hi"] });
    const cut = body.indexOf("event: content_block_stop");
    const error = event({
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" },
      request_id: null,
    });
    // One chunk: the text delta and the error are read together.
    const { url } = await serve([{ chunks: [body.slice(0, cut) + error] }]);
    const parts: ModelStreamPart[] = [];
    const thrown = await rejectionOf(
      (async () => {
        for await (const part of streamOf(model(url), ask)) parts.push(part);
      })(),
    );
    expect(parts).toEqual([{ type: "text", delta: "Hi" }]);
    expect(thrown).toMatchObject({ code: "provider_stream", providerType: "overloaded_error" });
  });

  it("unknown events and block kinds are skipped", async () => {
    const body = streamBody({ text: ["ok"] });
    const extra = [
      'event: content_block_start\ndata: {"type":"content_block_start","index":5,"content_block":{"type":"thinking","thinking":"","signature":""}}\n\n',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":5,"delta":{"type":"thinking_delta","thinking":"hmm"}}\n\n',
      'event: content_block_stop\ndata: {"type":"content_block_stop","index":5}\n\n',
      'event: brand_new\ndata: {"type":"brand_new"}\n\n',
    ].join("");
    const cut = body.indexOf("event: message_delta");
    const { url } = await serve([{ chunks: [body.slice(0, cut), extra, body.slice(cut)] }]);
    const parts = await collectParts(streamOf(model(url), ask));
    expect(parts.at(-1)).toMatchObject({ type: "finish", response: { text: "ok", toolCalls: [] } });
  });

  it("a 529 before the stream starts is retried", async () => {
    const { requests, url } = await serve([
      {
        status: 529,
        json: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
      },
      { chunks: [streamBody({ text: ["ok"] })] },
    ]);
    const parts = await collectParts(streamOf(model(url), ask));
    expect(parts.at(-1)).toMatchObject({ type: "finish", response: { text: "ok" } });
    expect(requests).toHaveLength(2);
  });
});
