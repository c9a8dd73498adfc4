// defineHttpModel, tested the way an adapter author uses it: a small adapter for a made-up wire
// format, built from a request, a response and a stream mapper, runs the whole adapter kit
// (options, key, headers, retries, redirects, caps, redaction, streaming split at every byte);
// then the spec's own hooks, one by one.
import {
  type ModelRequest,
  type ModelResponse,
  type ModelStreamPart,
  type ToolCall,
  toolCall,
} from "@toolnexus/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import { adapterSuite, type KitTurn, kitOptions } from "./adapter-suite.js";
import type { KitErrorReport } from "./adapter-suite-context.js";
import { ProviderError } from "./errors.js";
import type { FetchFunction } from "./http.js";
import {
  coalesceDeltas,
  defineHttpModel,
  type HttpModelOptions,
  type StreamMapper,
} from "./http-model.js";
import { type MockServer, sseEvent, startMockServer } from "./mock-server.js";
import { asRecord, malformedResponse, type ParseContext } from "./parse.js";
import { joinUrl } from "./url.js";

/** The toy API's answer and its events. */
interface ToyCall {
  id: string;
  name: string;
  arguments: string;
}
interface ToyAnswer {
  id: string;
  text: string;
  calls: ToyCall[];
  usage: { input: number; output: number };
  stop: "end" | "cut";
}

interface ToyOptions extends HttpModelOptions {
  /** An option of the toy adapter's own, checked at construction. */
  temperature?: number;
}

function toyError(
  json: Record<string, unknown>,
  context: ParseContext,
  code: "provider_response" | "provider_stream",
) {
  const error = asRecord(json.error) ?? {};
  const message = typeof error.message === "string" ? error.message : "unknown error";
  return new ProviderError(code, `${context.provider}: ${message}`, {
    provider: context.provider,
    providerMessage: message,
    providerType: typeof error.type === "string" ? error.type : undefined,
    providerCode: typeof error.code === "string" ? error.code : undefined,
    secrets: context.secrets,
  });
}

function toyResponse(json: unknown, context: ParseContext): ModelResponse {
  const body = asRecord(json);
  if (body === undefined) throw malformedResponse(context, "the answer is not an object");
  if (body.error !== undefined) throw toyError(body, context, "provider_response");
  if (!Array.isArray(body.calls)) throw malformedResponse(context, "the answer has no calls");
  const answer = body as unknown as ToyAnswer;
  return finish(answer.id, answer.text, answer.calls.map(callOf), answer);
}

function callOf(call: ToyCall): ToolCall {
  return toolCall(call.id, call.name, call.arguments);
}

function finish(
  id: string,
  text: string,
  toolCalls: ToolCall[],
  end: Pick<ToyAnswer, "usage" | "stop">,
): ModelResponse {
  const { input, output } = end.usage;
  return {
    id,
    text,
    toolCalls,
    usage: { promptTokens: input, completionTokens: output, totalTokens: input + output },
    finishReason: end.stop,
    stopReason: toolCalls.length > 0 ? "tool_calls" : end.stop === "cut" ? "length" : "stop",
  };
}

type ToyEnd = Pick<ToyAnswer, "usage" | "stop"> & { id: string };

/** Events: `{ type: "text", delta }`, `{ type: "call", call }`, `{ type: "end", ... }`. */
class ToyStream implements StreamMapper {
  readonly #context: ParseContext;
  #text = "";
  readonly #calls: ToolCall[] = [];
  #end: ToyEnd | undefined;

  constructor(context: ParseContext) {
    this.#context = context;
  }

  push(data: unknown): ModelStreamPart[] {
    const event = asRecord(data) ?? {};
    if (event.type === "error") throw toyError(event, this.#context, "provider_stream");
    if (event.type === "text" && typeof event.delta === "string") {
      this.#text += event.delta;
      return [{ type: "text", delta: event.delta }];
    }
    if (event.type === "call") {
      const call = callOf(event.call as ToyCall);
      this.#calls.push(call);
      return [{ type: "tool_call", call }];
    }
    if (event.type === "end") this.#end = event as unknown as ToyEnd;
    return [];
  }

  end(): ModelStreamPart[] {
    if (this.#end === undefined) {
      throw new ProviderError(
        "provider_stream",
        `${this.#context.provider}: the stream ended early`,
        {
          provider: this.#context.provider,
        },
      );
    }
    return [{ type: "finish", response: finish(this.#end.id, this.#text, this.#calls, this.#end) }];
  }
}

const TOY_BASE_URL = "https://api.toy.example/v1";

const toy = defineHttpModel<ToyOptions>({
  provider: "toy",
  genAiProvider: "toy.ai",
  exampleModel: "toy-small",
  userAgent: { product: "toolnexus-toy", version: "1.2.3" },
  baseUrl: { env: "TOY_BASE_URL", default: TOY_BASE_URL },
  apiKey: { env: ["TOY_API_KEY"], header: (key) => ({ authorization: `Bearer ${key}` }) },
  check: (options) => {
    if (options.temperature !== undefined && !(options.temperature >= 0)) {
      throw new TypeError(`toy: temperature must be >= 0, got ${options.temperature}`);
    }
  },
  url: (baseUrl) => joinUrl(baseUrl, "answers"),
  request: (request, { model, requestParams, stream, options }) => ({
    model,
    messages: request.messages,
    tools: request.tools.map((tool) => tool.name),
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    ...requestParams,
    stream,
  }),
  response: toyResponse,
  stream: (context) => new ToyStream(context),
  doneMarker: "[DONE]",
});

interface ToyBody {
  messages: ModelRequest["messages"];
  stream: boolean;
}

const toyAnswer = (turn: KitTurn): ToyAnswer => ({
  id: turn.id,
  text: turn.text ?? "",
  calls: (turn.calls ?? []).map((call) => ({
    id: call.id,
    name: call.name,
    arguments: JSON.stringify(call.args),
  })),
  usage: { input: turn.usage.promptTokens, output: turn.usage.completionTokens },
  stop: turn.stop === "length" ? "cut" : "end",
});

const errorOf = (report: KitErrorReport) => ({
  error: { message: report.message, type: report.type, code: report.code },
});

await adapterSuite("a toy adapter built with defineHttpModel", {
  provider: "toy",
  model: (settings) =>
    toy({
      model: "toy-small",
      baseUrl: settings.baseUrl,
      apiKey: settings.apiKey,
      retries: settings.retries,
      retryBaseMs: settings.retryBaseMs,
      ...kitOptions(settings),
    }),
  json: toyAnswer,
  sse: (turn) => {
    const answer = toyAnswer(turn);
    const half = Math.ceil(answer.text.length / 2);
    const events: unknown[] = [answer.text.slice(0, half), answer.text.slice(half)]
      .filter((delta) => delta !== "")
      .map((delta) => ({ type: "text", delta }));
    for (const call of answer.calls) events.push({ type: "call", call });
    events.push({ type: "end", id: answer.id, usage: answer.usage, stop: answer.stop });
    return `${events.map((event) => sseEvent(event)).join("")}data: [DONE]\n\n`;
  },
  errorBody: (_status, message) => ({ error: { message, type: "toy_error" } }),
  errorReport: {
    http: (_status, report) => errorOf(report),
    body: errorOf,
    stream: (report) => sseEvent({ type: "error", ...errorOf(report) }),
  },
  baseUrlEnv: { variable: "TOY_BASE_URL", model: (apiKey) => toy({ model: "toy-small", apiKey }) },
  isStream: (request) => (request.body as ToyBody).stream,
  turnIndex: (request) =>
    (request.body as ToyBody).messages.filter((m) => m.role === "assistant").length,
  toolResults: (request) =>
    (request.body as ToyBody).messages.flatMap((m) =>
      m.role === "tool" ? [{ callId: m.callId, content: m.content }] : [],
    ),
  options: {
    create: (options) => toy(options as ToyOptions),
    apiKeyEnv: ["TOY_API_KEY"],
    keyHeader: { name: "authorization", value: (key) => `Bearer ${key}` },
    userAgent: { product: "toolnexus-toy", version: "1.2.3" },
    idPrefix: "toy",
    defaultBaseUrl: TOY_BASE_URL,
  },
});

describe("defineHttpModel: the spec's hooks", () => {
  let server: MockServer | undefined;
  afterEach(async () => {
    vi.unstubAllEnvs();
    await server?.close();
    server = undefined;
  });
  const ask: ModelRequest = { messages: [{ role: "user", content: "hi" }], tools: [] };
  const ok = toyAnswer({
    id: "r1",
    text: "ok",
    usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
  });

  it("check runs at construction; the request mapper gets the options, the model and requestParams", async () => {
    expect(() => toy({ model: "m", temperature: -1 })).toThrow("toy: temperature must be >= 0");
    server = await startMockServer([{ json: ok }]);
    const m = toy({
      model: "toy-small",
      baseUrl: server.url,
      apiKey: "k",
      temperature: 0.5,
      requestParams: { seed: 7 },
    });
    expect(m).toMatchObject({ id: "toy:toy-small", provider: "toy.ai" });
    expect((await m.generate(ask)).text).toBe("ok");
    expect(server.requests[0]?.path).toBe("/answers");
    expect(server.requests[0]?.body).toEqual({
      model: "toy-small",
      messages: ask.messages,
      tools: [],
      temperature: 0.5,
      seed: 7,
      stream: false,
    });
  });

  it("fixed headers, modelName, url per call, retryStatuses, wrapFetch and an endpoint of its own", async () => {
    server = await startMockServer([
      { status: 418, json: { error: { message: "teapot" } } },
      { json: ok },
      { json: ok },
    ]);
    const seen: { url: string; secrets: readonly string[]; maxErrorBodyBytes: number }[] = [];
    const base = server.url;
    const custom = defineHttpModel<HttpModelOptions>({
      provider: "custom",
      genAiProvider: "custom",
      factory: "customModel",
      exampleModel: "c-1",
      idPrefix: "custom-api",
      userAgent: { product: "toolnexus-custom", version: "0.0.1" },
      baseUrl: { env: "CUSTOM_BASE_URL", default: "https://custom.example" },
      apiKey: { env: ["CUSTOM_KEY"], header: (key) => ({ "x-custom-key": key }) },
      endpoint: ({ apiKey, headers }) => ({
        baseUrl: base,
        apiKey: headers["x-tenant"] === undefined ? apiKey : `${apiKey}-${headers["x-tenant"]}`,
      }),
      headers: { "custom-version": "2024-01-01" },
      retryStatuses: [418],
      wrapFetch: (fetch, settings) => async (url, init) => {
        seen.push({ url, ...settings });
        return (fetch ?? globalThis.fetch)(url, init);
      },
      modelName: (model) => model.replace(/^models\//, ""),
      url: (baseUrl, { model, stream }) => joinUrl(baseUrl, `${model}/${stream ? "s" : "g"}`),
      request: () => ({}),
      response: toyResponse,
      stream: (context) => new ToyStream(context),
    });
    expect(() => custom({ model: " " })).toThrow(
      'customModel: "model" must be a non-empty string, e.g. "c-1"',
    );
    const m = custom({
      model: "models/c-1",
      apiKey: "secret-1",
      retryBaseMs: 1,
      maxErrorBodyBytes: 1000,
      headers: { "X-Tenant": "t9" },
    });
    expect(m.id).toBe("custom-api:c-1");
    expect((await m.generate(ask)).text).toBe("ok");
    // 418 is retried because the spec says so.
    expect(server.requests.map((r) => r.path)).toEqual(["/c-1/g", "/c-1/g"]);
    expect(server.requests[1]?.headers).toMatchObject({
      "custom-version": "2024-01-01",
      "x-custom-key": "secret-1-t9",
      "x-tenant": "t9",
      "user-agent": `toolnexus-custom/0.0.1 node/${process.versions.node}`,
    });
    expect(seen[0]).toMatchObject({ url: `${base}/c-1/g`, maxErrorBodyBytes: 1000 });
    expect(seen[0]?.secrets).toContain("secret-1-t9");
  });

  it("parts read in the same network chunk as an event that fails the stream are yielded first", async () => {
    // One body, so one chunk: two text deltas, then the provider's error event.
    const events = `${sseEvent({ type: "text", delta: "a" })}${sseEvent({ type: "text", delta: "b" })}${sseEvent({ type: "error", error: { type: "overloaded", message: "busy" } })}`;
    const fetch: FetchFunction = async () =>
      new Response(events, { headers: { "content-type": "text/event-stream" } });
    const parts: ModelStreamPart[] = [];
    let thrown: unknown;
    try {
      for await (const part of toy({ model: "toy-small", apiKey: "k", fetch }).stream!(ask)) {
        parts.push(part);
      }
    } catch (error) {
      thrown = error;
    }
    expect(parts).toEqual([{ type: "text", delta: "ab" }]);
    expect(thrown).toBeInstanceOf(ProviderError);
    expect(thrown).toMatchObject({ code: "provider_stream" });
  });

  it("a mapper that says done stops reading: later events are never parsed", async () => {
    const events = `${sseEvent({ type: "text", delta: "a" })}${sseEvent({ type: "end", id: "r", usage: { input: 1, output: 1 }, stop: "end" })}data: {not json\n\n`;
    const fetch: FetchFunction = async () =>
      new Response(events, { headers: { "content-type": "text/event-stream" } });
    const stopping = defineHttpModel<HttpModelOptions>({
      provider: "stopping",
      genAiProvider: "stopping",
      exampleModel: "s",
      userAgent: { product: "toolnexus-stopping", version: "0.0.1" },
      baseUrl: { env: "STOPPING_BASE_URL", default: "http://127.0.0.1:9" },
      apiKey: { env: ["STOPPING_KEY"], header: (key) => ({ authorization: key }) },
      url: (baseUrl) => baseUrl,
      request: () => ({}),
      response: toyResponse,
      stream: (context) => {
        const inner = new ToyStream(context);
        let done = false;
        return {
          push: (data) => {
            done = asRecord(data)?.type === "end";
            return inner.push(data);
          },
          end: () => inner.end(),
          get done() {
            return done;
          },
        };
      },
    });
    const parts: ModelStreamPart[] = [];
    for await (const part of stopping({ model: "s", fetch }).stream!(ask)) parts.push(part);
    expect(parts.map((part) => part.type)).toEqual(["text", "finish"]);
  });
});

describe("coalesceDeltas", () => {
  it("joins runs of text or reasoning deltas, never across types or tool calls", () => {
    const call = toolCall("c1", "lookup", `{"q":"x"}`);
    const into: ModelStreamPart[] = [];
    coalesceDeltas(into, [
      { type: "reasoning", delta: "a" },
      { type: "reasoning", delta: "b" },
      { type: "text", delta: "c" },
    ]);
    coalesceDeltas(into, [{ type: "text", delta: "d" }]);
    coalesceDeltas(into, [
      { type: "tool_call", call },
      { type: "text", delta: "e" },
      { type: "reasoning", delta: "f" },
      { type: "text", delta: "g" },
    ]);
    expect(into).toEqual([
      { type: "reasoning", delta: "ab" },
      { type: "text", delta: "cd" },
      { type: "tool_call", call },
      { type: "text", delta: "e" },
      { type: "reasoning", delta: "f" },
      { type: "text", delta: "g" },
    ]);
  });
});
