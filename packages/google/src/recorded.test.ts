// The Gemini adapter against responses the real Gemini API sent, recorded by vercel/ai and
// copied byte for byte into src/__fixtures__ (see its README), served from a local server.
import { createClient } from "@toolnexus/client";
import type { AssistantMessage, Message, ModelRequest, Tool } from "@toolnexus/core";
import {
  type MockReply,
  type MockServer,
  mockServerPerTest,
} from "@toolnexus/provider-utils/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MissingApiKeyError, ProviderError } from "./index.js";
import { google } from "./model.js";
import { generateContentBody } from "./request.js";
import { errorBody, fixture, geminiEvent, sseOfChunks } from "./test-fixtures.js";
import type { GenerateContentRequest } from "./wire.js";

const KEY = "AIzaSyTest-kit-0123456789abcdefghijklmn";

const mock = mockServerPerTest(afterEach);
afterEach(() => {
  vi.unstubAllEnvs();
});

function serve(...replies: MockReply[]): Promise<MockServer> {
  return mock.serve(replies);
}

function model(options: Partial<Parameters<typeof google>[0]> = {}) {
  return google({
    model: "gemini-3-pro-preview",
    baseUrl: `${mock.server?.url}/v1beta`,
    apiKey: KEY,
    retryBaseMs: 1,
    ...options,
  });
}

const json = (name: string): MockReply => ({ json: JSON.parse(fixture(name)) });
const chunks = (name: string): MockReply => ({ chunks: [sseOfChunks(fixture(name))] });
const sent = (index: number) => mock.server?.requests[index]?.body as GenerateContentRequest;

const ASK: ModelRequest = { messages: [{ role: "user", content: "How many r's?" }], tools: [] };

const weather: Tool = {
  name: "weather",
  description: "The weather in a location",
  inputSchema: {
    type: "object",
    properties: { location: { type: "string" } },
    required: ["location"],
    additionalProperties: false,
  },
  source: "custom",
  execute: async (args) => ({ output: `Sunny in ${String(args.location)}`, isError: false }),
};

describe("text", () => {
  it("generateContent: text, responseId, usage with thoughts, the signed part kept", async () => {
    await serve(json("google-text.json"));
    const response = await model().generate(ASK);
    expect(response).toEqual({
      id: "Un6LacrVMcjUxs0PmJfWoQc",
      text: "There are **3** r's in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.",
      toolCalls: [],
      // candidatesTokenCount 28 + thoughtsTokenCount 244; totalTokenCount as sent.
      usage: { promptTokens: 9, completionTokens: 272, totalTokens: 281, reasoningTokens: 244 },
      finishReason: "STOP",
      stopReason: "stop",
      providerData: {
        google: {
          parts: [
            {
              text: "There are **3** r's in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.",
              thoughtSignature:
                "EtoFCtcFAb4+9vtfe4MXRxQjw48U1WKrR/7lYsgFkVi/bepqsSPjY0VU7HEzkeCBIfy1fu5t9aUZ4IZ65aWagqbBrV45fc97olcg",
            },
          ],
        },
      },
    });
    const request = mock.server?.requests[0];
    expect(request?.path).toBe("/v1beta/models/gemini-3-pro-preview:generateContent");
    expect(request?.headers["x-goog-api-key"]).toBe(KEY);
    expect(request?.headers["user-agent"]).toMatch(/^toolnexus-google\//);
    expect(sent(0)).toEqual({ contents: [{ role: "user", parts: [{ text: "How many r's?" }] }] });
  });

  it("streamGenerateContent: deltas, the last usage, the signature of the trailing empty part", async () => {
    await serve(chunks("google-text.chunks.txt"));
    const parts = [];
    for await (const part of model().stream?.(ASK) ?? []) parts.push(part);
    expect(mock.server?.requests[0]?.path).toBe(
      "/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse",
    );
    // Both recorded chunks arrived in one network read: their deltas come as one part.
    expect(parts.filter((p) => p.type === "text").map((p) => p.delta)).toEqual([
      'There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y',
    ]);
    const finish = parts.at(-1);
    if (finish?.type !== "finish") throw new Error("no finish part");
    expect(finish.response.usage).toEqual({
      promptTokens: 9,
      completionTokens: 208,
      totalTokens: 217,
      reasoningTokens: 185,
    });
    expect(finish.response.stopReason).toBe("stop");
    expect(finish.response.id).toBe("bH6LaZW8Fp_3nsEPqtaSwQ4");
    const kept = (
      finish.response.providerData?.google as { parts: { text?: string }[] } | undefined
    )?.parts;
    // The text joined into one part; the signed empty part apart, as the API asks.
    expect(kept?.map((p) => p.text)).toEqual([
      'There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y',
      "",
    ]);
    expect(kept?.[1]).toHaveProperty("thoughtSignature");
  });

  it("a blocked prompt (promptFeedback.blockReason) is content_filter with no text", async () => {
    await serve(json("issue-19758-prompt-block.json"));
    const response = await model().generate(ASK);
    expect(response).toEqual({
      id: "EXCPaojyHaDUjMcP656rqAk",
      text: "",
      toolCalls: [],
      usage: { promptTokens: 9, completionTokens: 0, totalTokens: 9 },
      finishReason: "PROHIBITED_CONTENT",
      stopReason: "content_filter",
    });
  });
});

describe("function calls", () => {
  it("a Gemini 3 call and its signature go back on the next request, with the result by name", async () => {
    const recorded = JSON.parse(fixture("google-tool-call-gemini3.json"));
    await serve({ json: recorded }, json("google-text.json"));
    const client = createClient({ model: model(), tools: [weather] });
    const result = await client.run("Weather in San Francisco?");

    expect(result.status).toBe("done");
    expect(result.toolCalls.map((c) => [c.id, c.name, c.args])).toEqual([
      // No id from the API: one made from the responseId and the call's position.
      ["call_JniLacKqGqH0xs0P0O776As_0", "weather", { location: "San Francisco" }],
    ]);
    const first = sent(0);
    expect(first.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: "weather",
            description: "The weather in a location",
            parametersJsonSchema: weather.inputSchema,
          },
        ],
      },
    ]);
    // The model's parts exactly as recorded (signature on the call), then the result.
    expect(sent(1).contents).toEqual([
      { role: "user", parts: [{ text: "Weather in San Francisco?" }] },
      { role: "model", parts: recorded.candidates[0].content.parts },
      {
        role: "user",
        parts: [
          {
            functionResponse: {
              name: "weather",
              response: { output: "Sunny in San Francisco" },
            },
          },
        ],
      },
    ]);
    // The transcript keeps the parts under this adapter's key only.
    const assistant = result.messages.find((m) => m.role === "assistant") as AssistantMessage;
    expect(Object.keys(assistant.providerData ?? {})).toEqual(["google"]);
  });

  it("streamed: the call arrives whole, the empty closing part is dropped, the signature kept", async () => {
    await serve(chunks("google-tool-call.chunks.txt"));
    const parts = [];
    for await (const part of model().stream?.({ ...ASK, tools: [weather] }) ?? []) parts.push(part);
    expect(parts.map((p) => p.type)).toEqual(["tool_call", "finish"]);
    const finish = parts[1];
    if (finish?.type !== "finish") throw new Error("no finish part");
    expect(finish.response.stopReason).toBe("tool_calls");
    expect(finish.response.finishReason).toBe("STOP");
    const kept = (finish.response.providerData?.google as { parts: unknown[] } | undefined)?.parts;
    expect(kept).toEqual([
      {
        functionCall: { name: "weather", args: { location: "San Francisco" } },
        thoughtSignature: expect.stringMatching(/^EqUCCqICAb4/),
      },
    ]);
  });

  it("a call id the API gives is the call's id and goes back on the function response", async () => {
    await serve(json("google-recursive-tool-call.json"), json("google-text.json"));
    const search: Tool = {
      ...weather,
      name: "search",
      execute: async () => ({ output: "2 hits", isError: false }),
    };
    const result = await createClient({ model: model(), tools: [search] }).run("find x or y");
    expect(result.toolCalls[0]?.id).toBe("call_15475");
    expect(result.toolCalls[0]?.args).toEqual({
      condition: { or: [{ term: "x" }, { term: "y" }] },
    });
    expect(sent(1).contents[2]).toEqual({
      role: "user",
      parts: [
        { functionResponse: { id: "call_15475", name: "search", response: { output: "2 hits" } } },
      ],
    });
  });

  it("results go back in the order of the calls, under their names; errors as { error }", () => {
    const messages: Message[] = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Paris and Tokyo?" },
      {
        role: "assistant",
        id: "r1",
        content: "",
        toolCalls: [
          { id: "g_0", name: "get_weather", args: { city: "Paris" }, rawArgs: '{"city":"Paris"}' },
          { id: "g_1", name: "get_time", args: { city: "Tokyo" }, rawArgs: '{"city":"Tokyo"}' },
        ],
        // Another provider's data is never sent.
        providerData: {
          anthropic: { blocks: [{ type: "thinking", thinking: "x", signature: "s" }] },
        },
      },
      { role: "tool", callId: "g_1", name: "get_time", content: "oops", isError: true },
      { role: "tool", callId: "g_0", name: "get_weather", content: "Rain", isError: false },
      { role: "user", content: "Thanks" },
    ];
    const body = generateContentBody(
      { messages, tools: [weather], toolChoice: { name: "weather" }, maxTokens: 100 },
      { generationConfig: { temperature: 0.2, maxOutputTokens: 5 }, contents: "ignored" },
    );
    expect(body.systemInstruction).toEqual({ parts: [{ text: "Be brief." }] });
    expect(body.contents).toEqual([
      { role: "user", parts: [{ text: "Paris and Tokyo?" }] },
      {
        role: "model",
        parts: [
          { functionCall: { name: "get_weather", args: { city: "Paris" } } },
          { functionCall: { name: "get_time", args: { city: "Tokyo" } } },
        ],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "get_weather", response: { output: "Rain" } } },
          { functionResponse: { name: "get_time", response: { error: "oops" } } },
          { text: "Thanks" },
        ],
      },
    ]);
    expect(body.toolConfig).toEqual({
      functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["weather"] },
    });
    expect(body.generationConfig).toEqual({ temperature: 0.2, maxOutputTokens: 100 });
    // Without tools, no tools and no toolConfig.
    const plain = generateContentBody(ASK, {
      toolConfig: { functionCallingConfig: { mode: "ANY" } },
    });
    expect(plain).not.toHaveProperty("tools");
    expect(plain).not.toHaveProperty("toolConfig");
  });
});

describe("usage", () => {
  it("tool-use prompt tokens count as input, thoughts as output, as totalTokenCount adds them", async () => {
    const recorded = JSON.parse(fixture("google-usage-raw-live.json"));
    await serve({
      json: { ...JSON.parse(fixture("google-text.json")), usageMetadata: recorded.usageMetadata },
    });
    expect((await model().generate(ASK)).usage).toEqual({
      promptTokens: 77,
      completionTokens: 142,
      totalTokens: 219,
      reasoningTokens: 82,
    });
  });

  it("cachedContentTokenCount is cacheReadTokens, already inside promptTokens", async () => {
    const text = JSON.parse(fixture("google-text.json"));
    // The recording with a cache hit added (the field as the API documents it).
    text.usageMetadata.promptTokenCount = 2009;
    text.usageMetadata.cachedContentTokenCount = 2000;
    text.usageMetadata.totalTokenCount = 2281;
    await serve({ json: text });
    expect((await model().generate(ASK)).usage).toEqual({
      promptTokens: 2009,
      completionTokens: 272,
      totalTokens: 2281,
      cacheReadTokens: 2000,
      reasoningTokens: 244,
    });
  });
});

describe("errors", () => {
  it("a recorded 429 with RetryInfo: waits the retryDelay (capped), then fails typed", async () => {
    await serve({ status: 429, json: JSON.parse(fixture("google-429-retry-info.json")) });
    const error = await model({ retries: 1, maxRetryDelayMs: 20 })
      .generate(ASK)
      .catch((thrown: unknown) => thrown);
    if (!(error instanceof ProviderError)) throw new Error(`expected a ProviderError: ${error}`);
    expect(error).toMatchObject({
      code: "provider_http",
      status: 429,
      providerMessage: "You exceeded your current quota, please check your plan.",
      providerType: "RESOURCE_EXHAUSTED",
      providerCode: "RESOURCE_EXHAUSTED",
      retryable: true,
      retryAfterMs: 34_400,
    });
    expect(mock.server?.requests).toHaveLength(2);
  });

  it("a recorded 400 is INVALID_ARGUMENT and not retried", async () => {
    await serve({
      status: 400,
      json: JSON.parse(fixture("issue-8943-gemini-2.5-flash-error.json")),
    });
    const error = await model()
      .generate(ASK)
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({
      status: 400,
      providerMessage: "Penalty is not enabled for models/gemini-2.5-flash",
      providerType: "INVALID_ARGUMENT",
      retryable: false,
    });
    expect(mock.server?.requests).toHaveLength(1);
  });

  it("a bad key (400 with ErrorInfo API_KEY_INVALID) has that reason as providerCode", async () => {
    // Google's documented shape of this error, as quoted in public error reports.
    await serve({
      status: 400,
      json: {
        error: {
          code: 400,
          message: "API key not valid. Please pass a valid API key.",
          status: "INVALID_ARGUMENT",
          details: [
            {
              "@type": "type.googleapis.com/google.rpc.ErrorInfo",
              reason: "API_KEY_INVALID",
              domain: "googleapis.com",
              metadata: { service: "generativelanguage.googleapis.com" },
            },
          ],
        },
      },
    });
    const error = await model()
      .generate(ASK)
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({
      providerType: "INVALID_ARGUMENT",
      providerCode: "API_KEY_INVALID",
    });
  });

  it("an error event inside a stream is a ProviderError; a stream cut before its finish too", async () => {
    await serve({
      chunks: [
        sseOfChunks(fixture("google-text.chunks.txt").split("\n")[0] ?? ""),
        geminiEvent(errorBody(503, "The model is overloaded. Please try again later.")),
      ],
    });
    const consume = async () => {
      for await (const _part of model().stream?.(ASK) ?? []) {
        // drain
      }
    };
    await expect(consume()).rejects.toMatchObject({
      code: "provider_stream",
      providerMessage: "The model is overloaded. Please try again later.",
      providerType: "UNAVAILABLE",
    });
    await mock.server?.close();
    await serve({ chunks: [sseOfChunks(fixture("google-text.chunks.txt").split("\n")[0] ?? "")] });
    await expect(consume()).rejects.toMatchObject({ code: "provider_stream" });
  });
});

describe("keys and URLs", () => {
  it("GOOGLE_API_KEY wins over GEMINI_API_KEY, as in the official SDKs; the key is never in the URL", async () => {
    await serve(json("google-text.json"));
    vi.stubEnv("GOOGLE_API_KEY", "google-key-123");
    vi.stubEnv("GEMINI_API_KEY", "gemini-key-456");
    await model({ apiKey: undefined }).generate(ASK);
    vi.stubEnv("GOOGLE_API_KEY", "");
    await model({ apiKey: undefined }).generate(ASK);
    expect(mock.server?.requests.map((r) => r.headers["x-goog-api-key"])).toEqual([
      "google-key-123",
      "gemini-key-456",
    ]);
    expect(mock.server?.requests.every((r) => !r.path.includes("key"))).toBe(true);
  });

  it("a missing key names both variables; a model given as models/<name> works", async () => {
    vi.stubEnv("GOOGLE_API_KEY", "");
    vi.stubEnv("GEMINI_API_KEY", "");
    const remote = google({
      model: "models/gemini-2.5-flash",
      baseUrl: "https://example.com/v1beta",
    });
    expect(remote.id).toBe("google:gemini-2.5-flash");
    const error = await remote.generate(ASK).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(MissingApiKeyError);
    expect((error as Error).message).toContain("GOOGLE_API_KEY or GEMINI_API_KEY");
    expect(() => google({ model: " " })).toThrow(TypeError);
  });
});
