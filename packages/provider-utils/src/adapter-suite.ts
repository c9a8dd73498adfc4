import { readFileSync } from "node:fs";
import type {
  Model,
  ModelRequest,
  ModelResponse,
  ModelStreamPart,
  RunStore,
  ToolCall,
  ToolSpec,
  Usage,
} from "@toolnexus/core";
import {
  clientScenarios,
  type KitCreateClient,
  type KitTranslateRequest,
  type KitTranslateResult,
} from "./adapter-suite-client.js";
import type { KitErrorReport } from "./adapter-suite-context.js";
import { type KitOptionsHarness, optionScenarios } from "./adapter-suite-options.js";
import { type KitToolImage, partsScenarios } from "./adapter-suite-parts.js";
import { trustScenarios } from "./adapter-suite-trust.js";
import { ProviderError } from "./errors.js";
import type { FetchFunction } from "./http.js";
import {
  type MockReply,
  type MockServer,
  type RecordedRequest,
  startMockServer,
} from "./mock-server.js";

export type {
  KitCreateClient,
  KitRunEvent,
  KitTranslate,
  KitTranslateRequest,
  KitTranslateResult,
} from "./adapter-suite-client.js";
export { KIT_TRANSLATE_REQUEST, KIT_WEATHER_SCHEMA } from "./adapter-suite-client.js";
export type { KitOptionsHarness } from "./adapter-suite-options.js";
export { fromDataUrl, KIT_PNG, type KitToolImage } from "./adapter-suite-parts.js";

/** One tool call of a scripted turn. */
export interface KitCall {
  /** The provider's call id (ignored by a harness whose provider sends none). */
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/**
 * One model reply the suite scripts, in provider-neutral terms; the harness encodes it in its
 * provider's wire shape ({@link AdapterHarness.json} and {@link AdapterHarness.sse}).
 */
export interface KitTurn {
  /** The provider's response id; the adapter must return it as `ModelResponse.id`. */
  id: string;
  /** The reply's text ("" or absent: none). */
  text?: string;
  /** Tool calls, in order, after the text. */
  calls?: readonly KitCall[];
  /**
   * The usage to report, with every count the provider can express: `promptTokens` counts every
   * input token (cached or not), `completionTokens` every output token (reasoning included), as
   * `Usage` defines them. The harness turns it into the provider's own convention.
   */
  usage: Usage;
  /** `"length"`: the reply was cut at the token limit. Default: a finished reply. */
  stop?: "stop" | "length";
}

/** A tool result the adapter sent back, as the harness reads it from a request body. */
export interface KitToolResult {
  /** The call id the result answers (absent when the provider has no call ids). */
  callId?: string;
  /** The tool's name (absent when the provider does not send it). */
  name?: string;
  /** The result text as sent (for a provider that wraps it, e.g. `{ output }`, the text inside). */
  content: string;
}

/** What the suite passes to {@link AdapterHarness.model}. */
export interface KitModelSettings {
  /** The mock server's URL (`http://127.0.0.1:<port>`), to use as the base URL as-is. */
  baseUrl: string;
  apiKey: string;
  retries: number;
  retryBaseMs: number;
  /** Set by the byte-split scenario only: serve from memory instead of the mock server. */
  fetch?: FetchFunction;
  /** Extra request headers (a gateway's own credential), set by the redirect scenarios. */
  headers?: Record<string, string>;
  /** The adapter's size caps, set by the cap scenarios. */
  maxErrorBodyBytes?: number;
  maxEventBytes?: number;
  maxResponseBytes?: number;
}

/**
 * The optional settings of `settings` that are set (`fetch`, `headers`, the size caps), to spread
 * into the adapter's options: `myModel({ baseUrl, apiKey, ...kitOptions(settings) })`.
 */
export function kitOptions(
  settings: KitModelSettings,
): Pick<
  KitModelSettings,
  "fetch" | "headers" | "maxErrorBodyBytes" | "maxEventBytes" | "maxResponseBytes"
> {
  const out: ReturnType<typeof kitOptions> = {};
  if (settings.fetch !== undefined) out.fetch = settings.fetch;
  if (settings.headers !== undefined) out.headers = settings.headers;
  if (settings.maxErrorBodyBytes !== undefined) out.maxErrorBodyBytes = settings.maxErrorBodyBytes;
  if (settings.maxEventBytes !== undefined) out.maxEventBytes = settings.maxEventBytes;
  if (settings.maxResponseBytes !== undefined) out.maxResponseBytes = settings.maxResponseBytes;
  return out;
}

/**
 * The harness's `model` for an adapter factory: builds `model` against the mock server's URL
 * (with `basePath` appended, e.g. `"/v1"`), passing the key, the retry settings and every optional
 * setting through.
 *
 * @example
 * model: kitModel((options) => myModel(options as MyOptions), "my-small", "/v1"),
 */
export function kitModel(
  create: (options: Record<string, unknown> & { model: string }) => Model,
  model: string,
  basePath = "",
): (settings: KitModelSettings) => Model {
  return (settings) =>
    create({
      model,
      baseUrl: `${settings.baseUrl}${basePath}`,
      apiKey: settings.apiKey,
      retries: settings.retries,
      retryBaseMs: settings.retryBaseMs,
      ...kitOptions(settings),
    });
}

/** The `version` of a `package.json` (the one a `user-agent` must name), for `options.userAgent`. */
export function packageVersion(packageJson: URL): string {
  return (JSON.parse(readFileSync(packageJson, "utf8")) as { version: string }).version;
}

/**
 * How {@link adapterSuite} talks to one adapter: how to build the model against a base URL, how
 * to encode replies in the provider's wire shape, and how to read back what it sent.
 */
export interface AdapterHarness {
  /** The adapter's name, as in `ProviderError.provider` (e.g. `"openai"`). */
  provider: string;
  /**
   * Builds the model under test. Pass every setting through: the base URL (append the API's
   * version path when the adapter needs it, e.g. `${baseUrl}/v1`), the key, the retry settings
   * and, when set, the `fetch`.
   */
  model(settings: KitModelSettings): Model;
  /** The non-streamed response body of a turn, exactly as the provider sends it. */
  json(turn: KitTurn): unknown;
  /** The streamed response body of a turn (Server-Sent Events), exactly as the provider frames it. */
  sse(turn: KitTurn): string;
  /** The provider's error body for an HTTP status, carrying `message` as its human-readable text. */
  errorBody(status: number, message: string): unknown;
  /**
   * The provider's error reports carrying every field of `report` it has (message, type, code):
   * as the body of an HTTP error (`http`), inside a 200 JSON body (`body`) and as an event of a
   * stream (`stream`, the whole SSE text). The trust scenarios put the key in each field.
   */
  errorReport: {
    http(status: number, report: KitErrorReport): unknown;
    body(report: KitErrorReport): unknown;
    stream(report: KitErrorReport): string;
  };
  /**
   * The environment variable the adapter reads its base URL from (e.g. `"OPENAI_BASE_URL"`),
   * and the model built without a `baseUrl` option, so that it reads that variable.
   */
  baseUrlEnv: { variable: string; model(apiKey: string): Model };
  /** True when the request asked for a streamed answer. */
  isStream(request: RecordedRequest): boolean;
  /** How many assistant (model) turns the request's transcript already holds. */
  turnIndex(request: RecordedRequest): number;
  /** The tool results in the request's last turn, in order. */
  toolResults(request: RecordedRequest): KitToolResult[];
  /**
   * True when the provider sends no call ids and the adapter makes its own: the suite then checks
   * that ids are non-empty and distinct, and that results go back by name and order.
   */
  generatedCallIds?: boolean;
  /** The optional `Usage` counts the provider reports (checked by the usage scenario). */
  usageDetails?: readonly ("cacheReadTokens" | "cacheWriteTokens" | "reasoningTokens")[];
  /** `createClient` from `@toolnexus/client`, for the client scenarios (skipped without it). */
  createClient?: KitCreateClient;
  /** `translate` from `@toolnexus/client`, for the translate scenarios. */
  translate?(model: Model, request: KitTranslateRequest): Promise<KitTranslateResult>;
  /** `memoryRunStore` from `@toolnexus/client`, for the durable client scenarios. */
  memoryRunStore?: () => RunStore;
  /** The adapter's factory and identity, for the option scenarios (skipped without it). */
  options?: KitOptionsHarness;
  /**
   * The images a request sends for tool results (`ToolMessage.parts`), read from its body in
   * the provider's shape: the part scenarios run with it (skipped without it).
   */
  toolImages?(request: RecordedRequest): KitToolImage[];
}

/** The key every scenario uses: it must never appear in an error. */
export const KIT_API_KEY = "kit-secret-key-7f3a9c2e5b8d1f4a6c0e";

const BASIC_USAGE: Usage = { promptTokens: 11, completionTokens: 7, totalTokens: 18 };

const WEATHER: ToolSpec = {
  name: "get_weather",
  description: "The weather in a city",
  inputSchema: {
    type: "object",
    properties: { city: { type: "string" }, unit: { type: "string", enum: ["c", "f"] } },
    required: ["city"],
  },
};

const TEXT_TURN: KitTurn = {
  id: "kit-resp-text",
  text: 'Hello from the kit: naïve café, 東京, emoji 🌦️, a quote " and a backslash \\.',
  usage: BASIC_USAGE,
};

const CALL_TURN: KitTurn = {
  id: "kit-resp-call",
  calls: [{ id: "call_kit_1", name: "get_weather", args: { city: "Zürich", unit: "c" } }],
  usage: BASIC_USAGE,
};

const PARALLEL_TURN: KitTurn = {
  id: "kit-resp-parallel",
  text: "Checking both cities.",
  calls: [
    { id: "call_kit_a", name: "get_weather", args: { city: "Paris" } },
    { id: "call_kit_b", name: "get_weather", args: { city: "Tōkyō", unit: "f" } },
  ],
  usage: BASIC_USAGE,
};

const LENGTH_TURN: KitTurn = {
  id: "kit-resp-length",
  text: "This answer was cut at the tok",
  usage: { promptTokens: 9, completionTokens: 16, totalTokens: 25 },
  stop: "length",
};

const ASK = (tools: readonly ToolSpec[] = []): ModelRequest => ({
  messages: [
    { role: "system", content: "You are terse." },
    { role: "user", content: "What is the weather?" },
  ],
  tools,
});

/** What a stream gave: its text deltas joined, its tool_call parts and its finish response. */
interface Collected {
  text: string;
  calls: ToolCall[];
  finish: ModelResponse | undefined;
  parts: number;
}

async function collect(stream: AsyncIterable<ModelStreamPart>): Promise<Collected> {
  const out: Collected = { text: "", calls: [], finish: undefined, parts: 0 };
  for await (const part of stream) {
    out.parts++;
    if (out.finish !== undefined) throw new Error("a part arrived after finish");
    if (part.type === "text") out.text += part.delta;
    else if (part.type === "tool_call") out.calls.push(part.call);
    // Other parts (reasoning text) carry nothing these scenarios compare.
    else if (part.type === "finish") out.finish = part.response;
  }
  return out;
}

/**
 * The conformance suite every toolnexus model adapter runs against itself, with vitest. It
 * serves the adapter's own wire shapes (encoded by the harness) from a local mock server and
 * checks: plain text; one tool call; parallel calls; a streamed reply split at every byte
 * boundary giving the same result as whole; usage; a cut reply (`length`); HTTP errors
 * (401/400/429/500 as a typed {@link ProviderError}, 429/5xx retried, 400/401 not); an abort
 * (rejects promptly, never retried); the API key kept out of every error; and, when the harness
 * passes `createClient`, the client scenarios (a tool round trip and parallel calls, plain and
 * streamed).
 *
 * @example
 * // packages/my-adapter/src/adapter-suite.test.ts
 * import { adapterSuite } from "@toolnexus/provider-utils/testing";
 * import { createClient } from "@toolnexus/client";
 * await adapterSuite("my-adapter", { provider: "my", model: (s) => myModel({ ...s }), ...encoders, createClient });
 *
 * It is async because it loads vitest only when called: the rest of `/testing` (the mock
 * server) works in a project without vitest. Await it at the top level of the test file.
 */
export async function adapterSuite(name: string, harness: AdapterHarness): Promise<void> {
  const vitest = await import("vitest");
  const { afterEach, describe, expect, it } = vitest;
  describe(`adapter suite: ${name}`, () => {
    let server: MockServer | undefined;
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });

    /** Starts the mock server answering each request with `reply`. */
    const serve = async (reply: (request: RecordedRequest, index: number) => MockReply) => {
      server = await startMockServer(reply);
      return server;
    };
    /** Answers every request with `turn`, as JSON or as a stream as the request asks. */
    /** Resolves once the server has recorded `count` requests. */
    const requestsReach = async (count: number) => {
      while ((server?.requests.length ?? 0) < count)
        await new Promise((resolve) => setTimeout(resolve, 5));
    };
    const serveTurn = (turn: KitTurn) =>
      serve((request) =>
        harness.isStream(request) ? { chunks: [harness.sse(turn)] } : { json: harness.json(turn) },
      );
    const model = (retries = 2) =>
      harness.model({
        baseUrl: server?.url ?? "",
        apiKey: KIT_API_KEY,
        retries,
        retryBaseMs: 1,
      });

    /** Checks the calls of a response against the scripted ones. */
    const expectCalls = (calls: readonly ToolCall[], expected: readonly KitCall[]) => {
      expect(calls.map((call) => call.name)).toEqual(expected.map((call) => call.name));
      calls.forEach((call, i) => {
        expect(call.args).toEqual(expected[i]?.args);
        expect(JSON.parse(call.rawArgs)).toEqual(expected[i]?.args);
        expect(call.argsError).toBeUndefined();
        if (harness.generatedCallIds) expect(call.id).not.toBe("");
        else expect(call.id).toBe(expected[i]?.id);
      });
      expect(new Set(calls.map((call) => call.id)).size).toBe(calls.length);
    };

    /** The summary both ways of calling must agree on. */
    const essence = (response: ModelResponse | undefined) => ({
      id: response?.id,
      text: response?.text,
      calls: response?.toolCalls.map((call) => ({
        id: harness.generatedCallIds ? "(generated)" : call.id,
        name: call.name,
        args: call.args,
      })),
      usage: response?.usage,
      stopReason: response?.stopReason,
    });

    describe("replies", () => {
      it("text: generate and stream give the text, the id, the usage and stopReason stop", async () => {
        await serveTurn(TEXT_TURN);
        const m = model();
        const generated = await m.generate(ASK());
        expect(generated.text).toBe(TEXT_TURN.text);
        expect(generated.toolCalls).toEqual([]);
        expect(generated.id).toBe(TEXT_TURN.id);
        expect(generated.usage).toEqual(BASIC_USAGE);
        expect(generated.stopReason).toBe("stop");
        expect(typeof generated.finishReason).toBe("string");

        if (m.stream === undefined) return;
        const streamed = await collect(m.stream(ASK()));
        expect(streamed.text).toBe(TEXT_TURN.text);
        expect(essence(streamed.finish)).toEqual(essence(generated));
        expect(server?.requests.map((r) => harness.isStream(r))).toEqual([false, true]);
      });

      it("one tool call: its name, id, parsed args and raw JSON text; stopReason tool_calls", async () => {
        await serveTurn(CALL_TURN);
        const m = model();
        const generated = await m.generate(ASK([WEATHER]));
        expect(generated.text).toBe("");
        expectCalls(generated.toolCalls, CALL_TURN.calls ?? []);
        expect(generated.stopReason).toBe("tool_calls");

        if (m.stream === undefined) return;
        const streamed = await collect(m.stream(ASK([WEATHER])));
        expectCalls(streamed.calls, CALL_TURN.calls ?? []);
        expect(streamed.finish?.toolCalls).toEqual(streamed.calls);
        expect(essence(streamed.finish)).toEqual(essence(generated));
      });

      it("parallel calls: text and two calls, in order, with distinct ids", async () => {
        await serveTurn(PARALLEL_TURN);
        const m = model();
        const generated = await m.generate(ASK([WEATHER]));
        expect(generated.text).toBe(PARALLEL_TURN.text);
        expectCalls(generated.toolCalls, PARALLEL_TURN.calls ?? []);
        expect(generated.stopReason).toBe("tool_calls");

        if (m.stream === undefined) return;
        const streamed = await collect(m.stream(ASK([WEATHER])));
        expect(streamed.text).toBe(PARALLEL_TURN.text);
        expectCalls(streamed.calls, PARALLEL_TURN.calls ?? []);
        expect(essence(streamed.finish)).toEqual(essence(generated));
      });

      it("a reply cut at the token limit keeps its text with stopReason length", async () => {
        await serveTurn(LENGTH_TURN);
        const m = model();
        const generated = await m.generate(ASK());
        expect(generated.text).toBe(LENGTH_TURN.text);
        expect(generated.stopReason).toBe("length");
        if (m.stream === undefined) return;
        const streamed = await collect(m.stream(ASK()));
        expect(essence(streamed.finish)).toEqual(essence(generated));
      });

      it("usage: every count the provider reports, the same plain and streamed", async () => {
        const usage: Usage = { promptTokens: 1200, completionTokens: 90, totalTokens: 1290 };
        for (const key of harness.usageDetails ?? []) {
          usage[key] = { cacheReadTokens: 1000, cacheWriteTokens: 150, reasoningTokens: 40 }[key];
        }
        const turn: KitTurn = { ...TEXT_TURN, id: "kit-resp-usage", text: "Counted.", usage };
        await serveTurn(turn);
        const m = model();
        expect((await m.generate(ASK())).usage).toEqual(usage);
        if (m.stream === undefined) return;
        expect((await collect(m.stream(ASK()))).finish?.usage).toEqual(usage);
      });
    });

    describe("streaming", () => {
      it("split at every byte boundary, the stream gives the same result as whole", async () => {
        const turn: KitTurn = { ...PARALLEL_TURN, text: "Ünïcödé ✓ — 日本 🌍 split" };
        const body = new TextEncoder().encode(harness.sse(turn));
        const fetchOf =
          (chunks: readonly Uint8Array[]): FetchFunction =>
          async () =>
            new Response(
              new ReadableStream<Uint8Array>({
                start(controller) {
                  for (const chunk of chunks) controller.enqueue(chunk);
                  controller.close();
                },
              }),
              { status: 200, headers: { "content-type": "text/event-stream" } },
            );
        const run = async (chunks: readonly Uint8Array[]) => {
          const m = harness.model({
            baseUrl: "http://127.0.0.1:9",
            apiKey: KIT_API_KEY,
            retries: 0,
            retryBaseMs: 1,
            fetch: fetchOf(chunks),
          });
          if (m.stream === undefined) return undefined;
          const got = await collect(m.stream(ASK([WEATHER])));
          return {
            text: got.text,
            calls: essence({ text: "", toolCalls: got.calls }).calls,
            finish: essence(got.finish),
          };
        };
        const whole = await run([body]);
        if (whole === undefined) return;
        expect(whole.text).toBe(turn.text);
        expect(whole.calls?.map((call) => call.args)).toEqual(turn.calls?.map((c) => c.args));
        // Every byte in its own chunk.
        expect(await run([...body].map((byte) => Uint8Array.of(byte)))).toEqual(whole);
        // Chunks of every size from 2 to 17 bytes: each boundary (inside keys, escapes, UTF-8
        // sequences, lines) falls between chunks in several alignments, with whole events and a
        // partial one in the same chunk. Sized by a count of runs, not by the body's length.
        for (let size = 2; size <= 17; size++) {
          const chunks: Uint8Array[] = [];
          for (let at = 0; at < body.length; at += size) chunks.push(body.subarray(at, at + size));
          const got = await run(chunks);
          if (JSON.stringify(got) !== JSON.stringify(whole)) {
            expect({ size, got }).toEqual({ size, got: whole });
          }
        }
      });
    });

    describe("errors", () => {
      const cases = [
        { status: 400, message: "Invalid value for 'messages'.", retried: false },
        { status: 401, message: "Authentication failed.", retried: false },
        { status: 429, message: "Rate limit reached, slow down.", retried: true },
        { status: 500, message: "The server had an error.", retried: true },
      ];
      for (const { status, message, retried } of cases) {
        it(`${status}: a ProviderError with status and message, ${retried ? "retried" : "not retried"}`, async () => {
          await serve(() => ({ status, json: harness.errorBody(status, message) }));
          const m = model(2);
          const calls: (() => Promise<unknown>)[] = [() => m.generate(ASK())];
          const stream = m.stream;
          if (stream !== undefined) calls.push(() => collect(stream.call(m, ASK())));
          for (const call of calls) {
            const before = server?.requests.length ?? 0;
            const error = await call().then(
              () => undefined,
              (thrown: unknown) => thrown,
            );
            if (!(error instanceof ProviderError)) {
              throw new Error(`expected a ProviderError, got ${String(error)}`);
            }
            expect(error).toMatchObject({
              code: "provider_http",
              provider: harness.provider,
              status,
              providerMessage: message,
              retryable: retried,
            });
            expect(error.message).toContain(String(status));
            expect((server?.requests.length ?? 0) - before).toBe(retried ? 3 : 1);
          }
        });
      }

      it("a 429 then a 503 then an answer: the call succeeds after two retries", async () => {
        await serve((request, index) => {
          if (index === 0) return { status: 429, json: harness.errorBody(429, "slow down") };
          if (index === 1) return { status: 503, json: harness.errorBody(503, "overloaded") };
          return harness.isStream(request)
            ? { chunks: [harness.sse(TEXT_TURN)] }
            : { json: harness.json(TEXT_TURN) };
        });
        expect((await model(2).generate(ASK())).text).toBe(TEXT_TURN.text);
        expect(server?.requests).toHaveLength(3);
      });

      it("a dropped connection is retried", async () => {
        await serve((_request, index) =>
          index === 0 ? { drop: true } : { json: harness.json(TEXT_TURN) },
        );
        expect((await model(2).generate(ASK())).text).toBe(TEXT_TURN.text);
        expect(server?.requests).toHaveLength(2);
      });

      it("a 429 with Retry-After: 1 is retried after the wait it asks for, with the same body", async () => {
        await serve((_request, index) =>
          index === 0
            ? {
                status: 429,
                headers: { "retry-after": "1" },
                json: harness.errorBody(429, "slow down"),
              }
            : { json: harness.json(TEXT_TURN) },
        );
        const started = Date.now();
        // retryBaseMs is 1: only the server's Retry-After makes the wait a second long.
        expect((await model(2).generate(ASK())).text).toBe(TEXT_TURN.text);
        expect(Date.now() - started).toBeGreaterThanOrEqual(900);
        expect(server?.requests).toHaveLength(2);
        expect(server?.requests[1]?.rawBody).toBe(server?.requests[0]?.rawBody);
      });

      it("an error in a 200 body is a ProviderError with the provider's message", async () => {
        const report = {
          status: 503,
          message: "kit: overloaded",
          type: "kit_type",
          code: "kit_code",
        };
        await serve(() => ({ json: harness.errorReport.body(report) }));
        const error = await model(0)
          .generate(ASK())
          .then(
            () => undefined,
            (thrown: unknown) => thrown,
          );
        expect(error).toBeInstanceOf(ProviderError);
        expect(error).toMatchObject({
          code: "provider_response",
          provider: harness.provider,
          providerMessage: report.message,
          providerType: report.type,
        });
      });

      it("an error event in a stream is a ProviderError of code provider_stream", async () => {
        const report = {
          status: 500,
          message: "kit: the stream broke",
          type: "kit_type",
          code: "kit_code",
        };
        await serve(() => ({ chunks: [harness.errorReport.stream(report)] }));
        const m = model(0);
        if (m.stream === undefined) return;
        const error = await collect(m.stream(ASK())).then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(error).toMatchObject({ code: "provider_stream", provider: harness.provider });
        // Some providers add the error's kind to the message.
        expect(String((error as ProviderError).providerMessage)).toContain(report.message);
      });

      it("a connection dropped mid-stream is a ProviderError of code provider_network, not a hang", async () => {
        const sse = harness.sse(TEXT_TURN);
        const end = /\r?\n\r?\n/.exec(sse);
        const first = end === null ? 1 : end.index + end[0].length;
        await serve(() => ({ chunks: [sse.slice(0, first)], drop: true }));
        const m = model(2);
        if (m.stream === undefined) return;
        await expect(collect(m.stream(ASK()))).rejects.toMatchObject({ code: "provider_network" });
        expect(server?.requests).toHaveLength(1);
      });

      it("a stream that ends before the answer is complete is a ProviderError", async () => {
        const sse = harness.sse(TEXT_TURN);
        const end = /\r?\n\r?\n/.exec(sse);
        const first = end === null ? 1 : end.index + end[0].length;
        await serve(() => ({ chunks: [sse.slice(0, first)] }));
        const m = model(0);
        if (m.stream === undefined) return;
        await expect(collect(m.stream(ASK()))).rejects.toMatchObject({ code: "provider_stream" });
      });

      it("a malformed streamed event is a ProviderError of code provider_response", async () => {
        await serve(() => ({ chunks: ['data: {"id": "kit", "half": [\n\n'] }));
        const m = model(0);
        if (m.stream === undefined) return;
        await expect(collect(m.stream(ASK()))).rejects.toMatchObject({
          code: "provider_response",
          provider: harness.provider,
        });
      });

      it("a body that is not JSON is a ProviderError, not a crash", async () => {
        await serve(() => ({ text: "<html>gateway says hi</html>" }));
        await expect(model(0).generate(ASK())).rejects.toBeInstanceOf(ProviderError);
      });
    });

    describe("abort", () => {
      it("an abort during a slow answer rejects at once with the reason and is not retried", async () => {
        await serve(() => ({ delayMs: 20_000, reply: { json: harness.json(TEXT_TURN) } }));
        const m = model(3);
        for (const streamed of [false, true]) {
          if (streamed && m.stream === undefined) continue;
          const before = server?.requests.length ?? 0;
          const controller = new AbortController();
          const reason = new Error("kit: stop now");
          const started = Date.now();
          const call =
            streamed && m.stream !== undefined
              ? collect(m.stream(ASK(), { signal: controller.signal }))
              : m.generate(ASK(), { signal: controller.signal });
          // Abort once the server holds the request (a fixed delay raced a loaded machine).
          void requestsReach(before + 1).then(() => controller.abort(reason));
          await expect(call).rejects.toBe(reason);
          // The server answers after 20 s: rejecting well before that means it did not wait.
          expect(Date.now() - started).toBeLessThan(15_000);
          await new Promise((resolve) => setTimeout(resolve, 50));
          expect((server?.requests.length ?? 0) - before).toBe(1);
        }
      });

      it("an abort mid-stream rejects with the reason", async () => {
        const sse = harness.sse(TEXT_TURN);
        // The first event, then a long pause before the rest.
        const end = /\r?\n\r?\n/.exec(sse);
        const first = end === null ? 1 : end.index + end[0].length;
        await serve(() => ({
          chunks: [sse.slice(0, first), sse.slice(first)],
          chunkDelayMs: 20_000,
        }));
        const m = model(3);
        if (m.stream === undefined) return;
        const controller = new AbortController();
        const reason = new Error("kit: stop the stream");
        const started = Date.now();
        const call = collect(m.stream(ASK(), { signal: controller.signal }));
        void requestsReach(1).then(() => setTimeout(() => controller.abort(reason), 50));
        await expect(call).rejects.toBe(reason);
        expect(Date.now() - started).toBeLessThan(15_000);
        expect(server?.requests).toHaveLength(1);
      });

      it("an already aborted signal sends nothing", async () => {
        await serveTurn(TEXT_TURN);
        const controller = new AbortController();
        const reason = new Error("kit: never started");
        controller.abort(reason);
        await expect(model().generate(ASK(), { signal: controller.signal })).rejects.toBe(reason);
        expect(server?.requests).toHaveLength(0);
      });
    });

    trustScenarios(vitest, {
      provider: harness.provider,
      apiKey: KIT_API_KEY,
      model: (settings) => harness.model({ ...settings, apiKey: KIT_API_KEY, retryBaseMs: 1 }),
      okReply: (request) =>
        harness.isStream(request)
          ? { chunks: [harness.sse(TEXT_TURN)] }
          : { json: harness.json(TEXT_TURN) },
      errorReport: harness.errorReport,
      baseUrlEnv: harness.baseUrlEnv,
      request: ASK(),
      expectedText: TEXT_TURN.text ?? "",
    });

    describe("the API key", () => {
      const leaks = (error: unknown): string[] => {
        if (!(error instanceof ProviderError)) return [`not a ProviderError: ${String(error)}`];
        const places: Record<string, string> = {
          message: error.message,
          json: JSON.stringify(error),
          providerMessage: String(error.providerMessage),
          headers: JSON.stringify(error.responseHeaders ?? {}),
          stack: String(error.stack),
        };
        return Object.entries(places)
          .filter(([, text]) => text.includes(KIT_API_KEY))
          .map(([where]) => where);
      };

      it("is sent, and never appears in an error, whatever the server echoes back", async () => {
        const echo = `Incorrect API key provided: ${KIT_API_KEY}.`;
        const replies: MockReply[] = [
          // The key in the provider's message and in a response header.
          {
            status: 401,
            headers: { "x-request-id": `req_${KIT_API_KEY}` },
            json: harness.errorBody(401, echo),
          },
          // The key straddling the 200-character cut of a non-JSON body.
          { status: 400, text: `${"x".repeat(190)} ${KIT_API_KEY} trailing text` },
          // The key in a 200 body that is not JSON.
          { status: 200, text: `not json ${KIT_API_KEY}` },
        ];
        for (const reply of replies) {
          await serve(() => reply);
          const error = await model(0)
            .generate(ASK())
            .then(
              () => undefined,
              (thrown: unknown) => thrown,
            );
          expect(leaks(error)).toEqual([]);
          const sent = server?.requests[0];
          expect(
            Object.values(sent?.headers ?? {}).some((value) => value.includes(KIT_API_KEY)),
            "the key is sent in a header",
          ).toBe(true);
          expect(sent?.path.includes(KIT_API_KEY), "the key is not in the URL").toBe(false);
          await server?.close();
          server = undefined;
        }
      });
    });

    if (harness.options !== undefined) {
      optionScenarios(vitest, {
        provider: harness.provider,
        apiKey: KIT_API_KEY,
        harness: harness.options,
        baseUrlEnv: harness.baseUrlEnv.variable,
        okReply: (request) =>
          harness.isStream(request)
            ? { chunks: [harness.sse(TEXT_TURN)] }
            : { json: harness.json(TEXT_TURN) },
        request: ASK(),
        expectedText: TEXT_TURN.text ?? "",
      });
    }

    const toolImages = harness.toolImages?.bind(harness);
    describe.skipIf(toolImages === undefined)("part scenarios", () => {
      partsScenarios(vitest, {
        model: (baseUrl) =>
          harness.model({ baseUrl, apiKey: KIT_API_KEY, retries: 0, retryBaseMs: 1 }),
        okReply: (request) =>
          harness.isStream(request)
            ? { chunks: [harness.sse(TEXT_TURN)] }
            : { json: harness.json(TEXT_TURN) },
        toolImages: (request) => toolImages?.(request) ?? [],
        toolResults: harness.toolResults,
        generatedCallIds: harness.generatedCallIds === true,
      });
    });

    const createClient = harness.createClient;
    describe.skipIf(createClient === undefined)("client scenarios", () => {
      clientScenarios(vitest, {
        provider: harness.provider,
        apiKey: KIT_API_KEY,
        createClient: createClient as KitCreateClient,
        translate: harness.translate?.bind(harness),
        runStore: harness.memoryRunStore,
        model: (baseUrl, retries = 2) =>
          harness.model({ baseUrl, apiKey: KIT_API_KEY, retries, retryBaseMs: 1 }),
        reply: (turn, request) =>
          harness.isStream(request)
            ? { chunks: [harness.sse(turn)] }
            : { json: harness.json(turn) },
        errorBody: harness.errorBody,
        errorReport: harness.errorReport,
        isStream: harness.isStream,
        turnIndex: harness.turnIndex,
        toolResults: harness.toolResults,
        generatedCallIds: harness.generatedCallIds === true,
      });
    });
  });
}
