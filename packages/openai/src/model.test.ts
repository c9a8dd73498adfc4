import { readFileSync } from "node:fs";
import type { Model, ModelRequest, ModelStreamPart, ToolSpec } from "@toolnexus/core";
import { MissingApiKeyError, ProviderError } from "@toolnexus/provider-utils";
import {
  type MockHandler,
  type MockReply,
  type MockServer,
  splitBytes,
  sseEvent,
  startMockServer,
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
let server: MockServer | undefined;

beforeEach(() => {
  // The machine's own variables must not leak into these tests.
  vi.stubEnv("OPENAI_API_KEY", "");
  vi.stubEnv("OPENROUTER_API_KEY", "");
  vi.stubEnv("OPENAI_BASE_URL", "");
});

afterEach(async () => {
  vi.unstubAllEnvs();
  await server?.close();
  server = undefined;
});

async function serve(script: readonly MockReply[]): Promise<MockServer> {
  server = await startMockServer(script);
  return server;
}

async function serveWith(handler: MockHandler): Promise<MockServer> {
  server = await startMockServer(handler);
  return server;
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
  const body = server?.requests[index]?.body as ChatRequestBody;
  body satisfies ChatCompletionCreateParams;
  return body;
}

async function collect(parts: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const out: ModelStreamPart[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (thrown) {
    return thrown;
  }
  throw new Error("expected a rejection");
}

function stream(m: Model, request: ModelRequest, signal?: AbortSignal) {
  if (m.stream === undefined) throw new Error("the adapter streams");
  return m.stream(request, signal === undefined ? undefined : { signal });
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

  it("a 200 that carries an error object is a ProviderError", async () => {
    const { url } = await serve([
      { json: { error: { message: "Provider returned error", code: 502 } } },
    ]);
    const error = await failure(model(url).generate(ask));
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).providerMessage).toBe("Provider returned error");
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
    const error = await failure(gateway.generate(ask));
    expect(error).toBeInstanceOf(MissingApiKeyError);
    expect((error as Error).message).toBe(
      "openai: no API key: pass { apiKey } or set OPENAI_API_KEY (a baseUrl on localhost needs none). OPENROUTER_API_KEY is set but is only sent to openrouter.ai, not to gateway.example",
    );
    expect(fetch).not.toHaveBeenCalled();
  });

  it("a missing key is a clear error at the first call, naming the variables", async () => {
    const fetch = vi.fn<typeof globalThis.fetch>();
    const m = openai({ model: "gpt-4o-mini", fetch });
    const error = await failure(m.generate(ask));
    expect(error).toBeInstanceOf(MissingApiKeyError);
    expect((error as Error).message).toContain("OPENAI_API_KEY");
    expect((error as Error).message).toContain("OPENROUTER_API_KEY");
    await expect(collect(stream(m, ask))).rejects.toBeInstanceOf(MissingApiKeyError);
    expect(fetch).not.toHaveBeenCalled();
  });

  it("a loopback server needs no key, and gets no Authorization header", async () => {
    const { requests, url } = await serve([{ json: completion({ text: "local" }) }]);
    const response = await model(url, { apiKey: undefined }).generate(ask);
    expect(response.text).toBe("local");
    expect(requests[0]?.headers.authorization).toBeUndefined();
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

  it("rejects bad options at construction", () => {
    expect(() => openai({ model: "" })).toThrow(/model/);
    expect(() => openai({ model: "m", baseUrl: "not a url" })).toThrow(/baseUrl/);
    expect(() => openai({ model: "m", retries: -1 })).toThrow(/retries/);
  });

  it("refuses a baseUrl without a scheme at construction, saying what to write", async () => {
    expect(() => openai({ model: "m", baseUrl: "localhost:8787/v1" })).toThrow(
      'openai: "baseUrl" must be an absolute URL starting with http:// or https://, e.g. "http://localhost:8787/v1"; got "localhost:8787/v1"',
    );
    expect(() => openai({ model: "m", baseUrl: "api.example.com/v1" })).toThrow(
      /e\.g\. "https:\/\/api\.example\.com\/v1"/,
    );
    // OPENAI_BASE_URL is read at each call: the same mistake there fails the call, naming it.
    vi.stubEnv("OPENAI_BASE_URL", "localhost:8787/v1");
    const fetch = vi.fn<typeof globalThis.fetch>();
    await expect(openai({ model: "m", apiKey: KEY, fetch }).generate(ask)).rejects.toThrow(
      /"OPENAI_BASE_URL" must be an absolute URL .* e\.g\. "http:\/\/localhost:8787\/v1"/,
    );
    expect(fetch).not.toHaveBeenCalled();
  });

  it("has a readable id", () => {
    expect(openai({ model: "gpt-4o-mini" }).id).toBe("openai:gpt-4o-mini");
    expect(openai({ model: "gpt-4o-mini", id: "mine" }).id).toBe("mine");
  });
});

describe("openai headers: the user's win, and no secret goes where it does not belong", () => {
  const ENV_KEY = "sk-env-openai-5555";
  const ENV_OR_KEY = "sk-or-env-6666";

  /** Answers "ok", as a stream when the request asks for one. */
  function serveOk(): Promise<MockServer> {
    return serveWith((request) =>
      (request.body as ChatRequestBody).stream === true
        ? { chunks: [streamBody({ text: ["ok"] })] }
        : { json: completion({ text: "ok" }) },
    );
  }

  /** Every header value of every request the server saw, for "never sent" checks. */
  function everyHeader(): string {
    return JSON.stringify(server?.requests.map((request) => request.headers));
  }

  it("a user's Authorization in any letter case replaces the key, never joined with it", async () => {
    vi.stubEnv("OPENAI_API_KEY", ENV_KEY);
    const { requests, url } = await serveOk();
    await model(url, { apiKey: undefined, headers: { Authorization: "Bearer mine" } }).generate(
      ask,
    );
    await collect(
      stream(model(url, { apiKey: undefined, headers: { AUTHORIZATION: "Bearer mine" } }), ask),
    );
    // An explicit apiKey loses to the user's own header too.
    await model(url, { headers: { authorization: "Bearer mine" } }).generate(ask);
    expect(requests.map((request) => request.headers.authorization)).toEqual([
      "Bearer mine",
      "Bearer mine",
      "Bearer mine",
    ]);
    expect(everyHeader()).not.toContain(ENV_KEY);
    expect(everyHeader()).not.toContain(KEY);
  });

  it("an Azure-style api-key header means no key from the environment is sent", async () => {
    vi.stubEnv("OPENAI_API_KEY", ENV_KEY);
    vi.stubEnv("OPENROUTER_API_KEY", ENV_OR_KEY);
    const { requests, url } = await serve([{ json: completion({ text: "ok" }) }]);
    await openai({
      model: "my-deployment",
      baseUrl: `${url}/openai/deployments/my-deployment?api-version=2024-10-21`,
      headers: { "API-Key": "azure-key-1234" },
    }).generate(ask);
    expect(requests[0]?.headers["api-key"]).toBe("azure-key-1234");
    expect(requests[0]?.headers.authorization).toBeUndefined();
    expect(everyHeader()).not.toContain(ENV_KEY);
    expect(everyHeader()).not.toContain(ENV_OR_KEY);
  });

  it("a gateway that needs a key still gets OPENAI_API_KEY when it has none of its own", async () => {
    vi.stubEnv("OPENAI_API_KEY", ENV_KEY);
    vi.stubEnv("OPENROUTER_API_KEY", ENV_OR_KEY);
    const { requests, url } = await serve([{ json: completion({ text: "ok" }) }]);
    await openai({ model: "m", baseUrl: `${url}/v1` }).generate(ask);
    expect(requests[0]?.headers.authorization).toBe(`Bearer ${ENV_KEY}`);
    expect(everyHeader()).not.toContain(ENV_OR_KEY);
  });

  it("sends a user-agent naming the library and its version, which the user can override", async () => {
    const { version } = JSON.parse(
      readFileSync(new URL("../package.json", import.meta.url), "utf8"),
    ) as { version: string };
    const { requests, url } = await serveOk();
    await model(url).generate(ask);
    await collect(stream(model(url), ask));
    await model(url, { headers: { "User-Agent": "my-app/1.0" } }).generate(ask);
    const agents = requests.map((request) => request.headers["user-agent"]);
    const ours = `toolnexus-openai/${version} node/${process.versions.node}`;
    expect(agents).toEqual([ours, ours, "my-app/1.0"]);
  });

  it("the user's headers win over the adapter's own, whatever their case", async () => {
    const { requests, url } = await serve([{ json: completion({ text: "ok" }) }]);
    await model(url, {
      headers: { "Content-Type": "application/json; charset=utf-8", "X-Title": "t" },
    }).generate(ask);
    expect(requests[0]?.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(requests[0]?.headers["x-title"]).toBe("t");
  });
});

describe("openai retries and failures", () => {
  it("429 with Retry-After waits that long, then succeeds", async () => {
    const { requests, url } = await serve([
      {
        status: 429,
        headers: { "retry-after": "1" },
        json: {
          error: {
            message: "Rate limit reached for gpt-4o-mini",
            type: "requests",
            param: null,
            code: "rate_limit_exceeded",
          },
        },
      },
      { json: completion({ text: "after the wait" }) },
    ]);
    const started = Date.now();
    const response = await model(url, { retryBaseMs: 1 }).generate(ask);
    expect(response.text).toBe("after the wait");
    expect(requests).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(requests[1]?.rawBody).toBe(requests[0]?.rawBody);
  });
});

describe("openai stream", () => {
  it("streams text deltas, then finish with usage from the last chunk", async () => {
    const { url } = await serve([
      { chunks: [streamBody({ text: ["Hel", "lo", " wörld"], usage: [12, 3] })] },
    ]);
    const parts = await collect(stream(model(url), ask));
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
      { type: "text", delta: "Hel" },
      { type: "text", delta: "lo" },
      { type: "text", delta: " wörld" },
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
    const parts = await collect(stream(model(url), ask));

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
    const error = await failure(
      (async () => {
        for await (const part of stream(model(url), ask)) parts.push(part);
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

  it("a connection dropped mid-stream is a ProviderError, not a hang", async () => {
    const body = streamBody({ text: ["one ", "two ", "three"], usage: [1, 1] });
    const cut = body.indexOf("two");
    const { url } = await serve([{ chunks: [body.slice(0, cut)], drop: true }]);
    await expect(collect(stream(model(url), ask))).rejects.toMatchObject({
      code: "provider_network",
    });
  });

  it("a stream that ends without [DONE] or a finish reason is a ProviderError", async () => {
    const id = "chatcmpl-cut";
    const { url } = await serve([
      { chunks: [sseEvent(chunk(id, { role: "assistant", content: "partial" }))] },
    ]);
    await expect(collect(stream(model(url), ask))).rejects.toMatchObject({
      code: "provider_stream",
    });
  });

  it("a server that omits [DONE] after the finish reason is fine", async () => {
    const { url } = await serve([{ chunks: [streamBody({ text: ["ok"], done: false })] }]);
    const parts = await collect(stream(model(url), ask));
    expect(parts.at(-1)).toMatchObject({ type: "finish", response: { text: "ok" } });
  });

  it("a malformed chunk is a ProviderError", async () => {
    const { url } = await serve([{ chunks: ['data: {"id": "x", "choices": [\n\n'] }]);
    await expect(collect(stream(model(url), ask))).rejects.toMatchObject({
      code: "provider_response",
    });
  });
});
