import type { Model, ModelRequest, ModelStreamPart, ToolSpec } from "@toolnexus/core";
import { MissingApiKeyError, ProviderError } from "@toolnexus/provider-utils";
import {
  collectParts,
  type MockReply,
  type MockServer,
  mockServerPerTest,
  rejectionOf,
  splitBytes,
  sseEvent,
  streamOf,
} from "@toolnexus/provider-utils/testing";
import type {
  ChatCompletionCreateParams,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
} from "openai/resources/chat/completions";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type OpenAIOptions, openai } from "./model.js";
import { chunk, completion, streamBody } from "./test-fixtures.js";
import type { ChatRequestBody } from "./wire.js";

const KEY = "sk-proj-TESTKEY0123456789";
const mock = mockServerPerTest(afterEach);

beforeEach(() => {
  // The machine's own variables must not leak into these tests.
  vi.stubEnv("OPENAI_API_KEY", "");
  vi.stubEnv("OPENROUTER_API_KEY", "");
  vi.stubEnv("OPENAI_BASE_URL", "");
});

afterEach(() => {
  vi.unstubAllEnvs();
});

function serve(script: readonly MockReply[]): Promise<MockServer> {
  return mock.serve(script);
}

function model(url: string, options: Partial<OpenAIOptions> = {}): Model {
  return openai({
    model: "gpt-4o-mini",
    baseUrl: `${url}/v1`,
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

/** The recorded body, typed as what the adapter sends and checked against the SDK's types. */
function sentBody(index = 0): ChatRequestBody {
  const body = mock.server?.requests[index]?.body as ChatRequestBody;
  body satisfies ChatCompletionCreateParams;
  return body;
}

describe("openai generate", () => {
  it("POSTs {baseUrl}/chat/completions with the key, the transcript and the tools", async () => {
    const { requests, url } = await serve([
      { json: completion({ text: "Sunny, 21°C.", usage: [42, 7] }) },
    ]);
    const response = await model(url).generate(ask);

    expect(requests).toHaveLength(1);
    const request = requests[0];
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe("/v1/chat/completions");
    expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request?.headers["content-type"]).toBe("application/json");
    const expected = {
      model: "gpt-4o-mini",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Weather in Paris?" },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "get_weather",
            description: "Current weather for a city",
            parameters: {
              type: "object",
              properties: { city: { type: "string" } },
              required: ["city"],
              additionalProperties: false,
            },
          },
        },
      ],
      tool_choice: "auto",
    } satisfies ChatCompletionCreateParamsNonStreaming;
    expect(sentBody()).toEqual(expected);

    expect(response).toEqual({
      id: "chatcmpl-AbC123",
      text: "Sunny, 21°C.",
      toolCalls: [],
      usage: { promptTokens: 42, completionTokens: 7, totalTokens: 49 },
      finishReason: "stop",
      stopReason: "stop",
    });
  });

  it("reads tool calls with their raw argument text, parsed args and the response id", async () => {
    const { url } = await serve([
      {
        json: completion({
          id: "chatcmpl-tools",
          toolCalls: [
            { id: "call_a", name: "get_weather", arguments: '{\n  "city": "Paris"\n}' },
            { id: "call_b", name: "get_weather", arguments: '{"city":"Zürich"}' },
            { id: "call_c", name: "get_weather", arguments: '{"city": "Ber' },
          ],
        }),
      },
    ]);
    const response = await model(url).generate(ask);
    expect(response.id).toBe("chatcmpl-tools");
    expect(response.text).toBe("");
    expect(response.finishReason).toBe("tool_calls");
    expect(response.toolCalls).toEqual([
      {
        id: "call_a",
        name: "get_weather",
        args: { city: "Paris" },
        rawArgs: '{\n  "city": "Paris"\n}',
      },
      { id: "call_b", name: "get_weather", args: { city: "Zürich" }, rawArgs: '{"city":"Zürich"}' },
      {
        id: "call_c",
        name: "get_weather",
        args: {},
        rawArgs: '{"city": "Ber',
        argsError: expect.stringContaining("not valid JSON"),
      },
    ]);
  });

  it("sends a whole conversation with tool results back", async () => {
    const { url } = await serve([{ json: completion({ text: "done" }) }]);
    await model(url).generate({
      tools: [weather],
      messages: [
        { role: "user", content: "Weather in Paris?" },
        {
          role: "assistant",
          id: "chatcmpl-1",
          content: "",
          toolCalls: [
            {
              id: "call_a",
              name: "get_weather",
              args: { city: "Paris" },
              rawArgs: '{"city": "Paris"}',
            },
          ],
        },
        { role: "tool", callId: "call_a", name: "get_weather", content: "21°C", isError: false },
      ],
    });
    expect(sentBody().messages).toEqual([
      { role: "user", content: "Weather in Paris?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_a",
            type: "function",
            function: { name: "get_weather", arguments: '{"city": "Paris"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_a", content: "21°C" },
    ]);
  });

  it("leaves tools and tool_choice out without tools, and merges requestParams", async () => {
    const { url } = await serve([{ json: completion({ text: "hi" }) }]);
    await model(url, {
      requestParams: { temperature: 0, seed: 7, max_tokens: 64, tool_choice: "required" },
    }).generate({ messages: [{ role: "user", content: "hi" }], tools: [] });
    const expected = {
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "hi" }],
      temperature: 0,
      seed: 7,
      max_tokens: 64,
    } satisfies ChatCompletionCreateParamsNonStreaming;
    expect(sentBody()).toEqual(expected);
  });

  it("adds the caller's headers and keeps a query string on the base URL", async () => {
    const { requests, url } = await serve([{ json: completion({ text: "ok" }) }]);
    await openai({
      model: "my-deployment",
      baseUrl: `${url}/openai/deployments/my-deployment?api-version=2024-10-21`,
      headers: { "api-key": "azure-key-1234", "x-title": "toolnexus tests" },
    }).generate(ask);
    expect(requests[0]?.path).toBe(
      "/openai/deployments/my-deployment/chat/completions?api-version=2024-10-21",
    );
    expect(requests[0]?.headers["api-key"]).toBe("azure-key-1234");
    expect(requests[0]?.headers["x-title"]).toBe("toolnexus tests");
    expect(requests[0]?.headers.authorization).toBeUndefined();
  });

  it("a 200 without choices is a ProviderError", async () => {
    const { url } = await serve([{ json: { id: "x", object: "chat.completion", choices: [] } }]);
    await expect(model(url).generate(ask)).rejects.toMatchObject({ code: "provider_response" });
  });
});

describe("openai API key", () => {
  it("defaults to OPENAI_API_KEY", async () => {
    vi.stubEnv("OPENAI_API_KEY", "sk-from-env-1111");
    vi.stubEnv("OPENROUTER_API_KEY", "sk-or-from-env-2222");
    const { requests, url } = await serve([{ json: completion({ text: "ok" }) }]);
    await model(url, { apiKey: undefined }).generate(ask);
    expect(requests[0]?.headers.authorization).toBe("Bearer sk-from-env-1111");
  });

  it("never sends OPENROUTER_API_KEY to a host that is not OpenRouter", async () => {
    vi.stubEnv("OPENROUTER_API_KEY", "sk-or-from-env-2222");
    const { requests, url } = await serve([{ json: completion({ text: "ok" }) }]);
    await model(url, { apiKey: undefined }).generate(ask);
    expect(requests[0]?.headers.authorization).toBeUndefined();
    expect(JSON.stringify(requests[0]?.headers)).not.toContain("sk-or-from-env-2222");

    const fetch = vi.fn<typeof globalThis.fetch>();
    const gateway = openai({ model: "m", baseUrl: "https://gateway.example/v1", fetch });
    const error = await rejectionOf(gateway.generate(ask));
    expect(error).toBeInstanceOf(MissingApiKeyError);
    expect((error as Error).message).toBe(
      "openai: no API key: pass { apiKey } or set OPENAI_API_KEY (a baseUrl on localhost needs none). OPENROUTER_API_KEY is set but is only sent to openrouter.ai, not to gateway.example",
    );
    expect(fetch).not.toHaveBeenCalled();
  });

  it("a missing key is a clear error at the first call, naming the variables", async () => {
    const fetch = vi.fn<typeof globalThis.fetch>();
    const m = openai({ model: "gpt-4o-mini", fetch });
    const error = await rejectionOf(m.generate(ask));
    expect(error).toBeInstanceOf(MissingApiKeyError);
    expect((error as Error).message).toContain("OPENAI_API_KEY");
    expect((error as Error).message).toContain("OPENROUTER_API_KEY");
    await expect(collectParts(streamOf(m, ask))).rejects.toBeInstanceOf(MissingApiKeyError);
    expect(fetch).not.toHaveBeenCalled();
  });

  it("defaults to OpenAI, OPENAI_BASE_URL, or OpenRouter when only its key is set", async () => {
    const urls: string[] = [];
    const fetch = vi.fn(async (input: string, _init: RequestInit) => {
      urls.push(input);
      return Response.json(completion({ text: "ok" }));
    });
    vi.stubEnv("OPENAI_API_KEY", "sk-openai-3333");
    await openai({ model: "m", fetch }).generate(ask);
    vi.stubEnv("OPENAI_BASE_URL", "https://gateway.example/v1/");
    await openai({ model: "m", fetch }).generate(ask);
    vi.stubEnv("OPENAI_BASE_URL", "");
    vi.stubEnv("OPENAI_API_KEY", "");
    vi.stubEnv("OPENROUTER_API_KEY", "sk-or-4444");
    await openai({ model: "openai/gpt-4o", fetch }).generate(ask);
    expect(urls).toEqual([
      "https://api.openai.com/v1/chat/completions",
      "https://gateway.example/v1/chat/completions",
      "https://openrouter.ai/api/v1/chat/completions",
    ]);
    const auth = fetch.mock.calls.map(
      ([, init]) =>
        (init as RequestInit & { headers: Record<string, string> }).headers.authorization,
    );
    expect(auth).toEqual(["Bearer sk-openai-3333", "Bearer sk-openai-3333", "Bearer sk-or-4444"]);
  });

  it("on an OpenRouter base URL, OPENROUTER_API_KEY is preferred", async () => {
    vi.stubEnv("OPENAI_API_KEY", "sk-openai-3333");
    vi.stubEnv("OPENROUTER_API_KEY", "sk-or-4444");
    const fetch = vi.fn(async (_input: string, _init: RequestInit) =>
      Response.json(completion({ text: "ok" })),
    );
    await openai({ model: "m", baseUrl: "https://openrouter.ai/api/v1", fetch }).generate(ask);
    const init = fetch.mock.calls[0]?.[1] as RequestInit & { headers: Record<string, string> };
    expect(init.headers.authorization).toBe("Bearer sk-or-4444");
  });
});

// The generic key and header rules are the adapter kit's option scenarios; these are OpenAI's.
describe("openai headers: no secret goes where it does not belong", () => {
  const ENV_KEY = "sk-env-openai-5555";
  const ENV_OR_KEY = "sk-or-env-6666";

  /** Every header value of every request the server saw, for "never sent" checks. */
  function everyHeader(): string {
    return JSON.stringify(mock.server?.requests.map((request) => request.headers));
  }

  it("a gateway that needs a key still gets OPENAI_API_KEY when it has none of its own", async () => {
    vi.stubEnv("OPENAI_API_KEY", ENV_KEY);
    vi.stubEnv("OPENROUTER_API_KEY", ENV_OR_KEY);
    const { requests, url } = await serve([{ json: completion({ text: "ok" }) }]);
    await openai({ model: "m", baseUrl: `${url}/v1` }).generate(ask);
    expect(requests[0]?.headers.authorization).toBe(`Bearer ${ENV_KEY}`);
    expect(everyHeader()).not.toContain(ENV_OR_KEY);
  });
});

describe("openai stream", () => {
  it("streams text deltas, then finish with usage from the last chunk", async () => {
    const { url } = await serve([
      { chunks: [streamBody({ text: ["Hel", "lo", " wörld"], usage: [12, 3] })] },
    ]);
    const parts = await collectParts(streamOf(model(url), ask));
    const expected = {
      model: "gpt-4o-mini",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Weather in Paris?" },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "get_weather",
            description: "Current weather for a city",
            parameters: weather.inputSchema,
          },
        },
      ],
      tool_choice: "auto",
      stream: true,
      stream_options: { include_usage: true },
    } satisfies ChatCompletionCreateParamsStreaming;
    expect(sentBody()).toEqual(expected);
    expect(parts).toEqual([
      // The three deltas arrived in one network chunk: one part (coalesceDeltas).
      { type: "text", delta: "Hello wörld" },
      {
        type: "finish",
        response: {
          id: "chatcmpl-AbC123",
          text: "Hello wörld",
          toolCalls: [],
          usage: { promptTokens: 12, completionTokens: 3, totalTokens: 15 },
          finishReason: "stop",
          stopReason: "stop",
        },
      },
    ]);
  });

  it("assembles parallel tool calls from fragments split mid-key, mid-escape and mid-UTF-8", async () => {
    const body = streamBody({
      id: "chatcmpl-split",
      text: ["Checking…"],
      toolCalls: [
        {
          id: "call_paris",
          name: "get_weather",
          // Cut inside the key "city" and between a backslash and the character it escapes.
          fragments: ['{"ci', 'ty": "Paris \\', '"Rive Gauche\\""', "}"],
        },
        {
          id: "call_zurich",
          name: "get_weather",
          // A fragment boundary inside a surrogate pair, and multi-byte characters.
          fragments: ['{"city": "Zürich \ud83d', '\ude00", "note": "ünïcødé €"}'],
        },
      ],
      usage: [30, 20],
    });
    // Cut the raw bytes too: inside "ü" (2 bytes), "€" (3 bytes), "…" (3 bytes), in "data:".
    const chunks = splitBytes(body, [
      { at: "…", offset: 1 },
      { at: "data:", offset: 2 },
      { at: '"ci', offset: 2 },
      { at: "ü", offset: 1 },
      { at: "ünïcødé", offset: 1 },
      { at: "€", offset: 2 },
      { at: "[DONE]", offset: 3 },
    ]);
    const { url } = await serve([{ chunks, chunkDelayMs: 10 }]);
    const parts = await collectParts(streamOf(model(url), ask));

    const calls = [
      {
        id: "call_paris",
        name: "get_weather",
        args: { city: 'Paris "Rive Gauche"' },
        rawArgs: '{"city": "Paris \\"Rive Gauche\\""}',
      },
      {
        id: "call_zurich",
        name: "get_weather",
        args: { city: "Zürich 😀", note: "ünïcødé €" },
        rawArgs: '{"city": "Zürich 😀", "note": "ünïcødé €"}',
      },
    ];
    expect(parts).toEqual([
      { type: "text", delta: "Checking…" },
      { type: "tool_call", call: calls[0] },
      { type: "tool_call", call: calls[1] },
      {
        type: "finish",
        response: {
          id: "chatcmpl-split",
          text: "Checking…",
          toolCalls: calls,
          usage: { promptTokens: 30, completionTokens: 20, totalTokens: 50 },
          finishReason: "tool_calls",
          stopReason: "tool_calls",
        },
      },
    ]);
  });

  it("an error chunk in the stream is a ProviderError with the provider's message", async () => {
    const { url } = await serve([
      {
        chunks: [
          sseEvent(chunk("chatcmpl-e", { role: "assistant", content: "Hi" })),
          sseEvent({
            error: {
              message: "The server had an error while processing your request.",
              type: "server_error",
            },
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
      providerMessage: "The server had an error while processing your request.",
      providerType: "server_error",
    });
  });

  it("a server that omits [DONE] after the finish reason is fine", async () => {
    const { url } = await serve([{ chunks: [streamBody({ text: ["ok"], done: false })] }]);
    const parts = await collectParts(streamOf(model(url), ask));
    expect(parts.at(-1)).toMatchObject({ type: "finish", response: { text: "ok" } });
  });
});
