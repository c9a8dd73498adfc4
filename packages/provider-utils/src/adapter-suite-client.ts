// The client scenarios of the adapter suite: the adapter under `createClient` from
// @toolnexus/client, as a user runs it (tool round trips, parallel calls, a suspension resumed
// by another client, errors, a key kept out of the run store). Split from adapter-suite.ts to
// keep one concept per file.
import { inspect } from "node:util";
import {
  type Answer,
  type Model,
  pending,
  type RunResult,
  type RunStore,
  type Tool,
  type ToolContext,
  type Usage,
} from "@toolnexus/core";
import type { KitErrorReport } from "./adapter-suite-context.js";
import { ProviderError } from "./errors.js";
import {
  type MockReply,
  type MockServer,
  type RecordedRequest,
  startMockServer,
} from "./mock-server.js";

/** The part of a client's run event the client scenarios read (`{ type: "done", result }`). */
export interface KitRunEvent {
  type: string;
}

/** The part of `createClient` from `@toolnexus/client` the client scenarios use. */
export type KitCreateClient = (options: {
  model: Model;
  tools: readonly Tool[];
  runs?: RunStore;
}) => {
  run(prompt: string, options?: { sessionId?: string }): Promise<RunResult>;
  stream(prompt: string): AsyncIterable<KitRunEvent>;
  resume(answer: Answer): Promise<RunResult>;
};

/** What the translate scenarios send: an OpenAI-style conversation (SPEC §11). */
export interface KitTranslateRequest {
  messages: readonly unknown[];
  tools?: readonly unknown[];
  toolChoice?: unknown;
  maxTokens?: number;
}

/** The part of `translate`'s result the translate scenarios read. */
export interface KitTranslateResult {
  text: string;
  toolCalls: { id: string; name: string; arguments: string }[];
  finishReason: string;
  stopReason?: string;
  usage: Usage;
  model: string;
}

/** `translate` from `@toolnexus/client` (a method, so the real one's wider types fit). */
export interface KitTranslate {
  translate(model: Model, request: KitTranslateRequest): Promise<KitTranslateResult>;
}

/** The weather tool's JSON Schema in {@link KIT_TRANSLATE_REQUEST}. */
export const KIT_WEATHER_SCHEMA = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
};

/**
 * The conversation the translate scenarios send (OpenAI's shape, SPEC §11): parallel calls, one
 * with object arguments as some clients send them, their results, then the user's next question.
 * Exported so an adapter's own test can check the wire body it becomes.
 */
export const KIT_TRANSLATE_REQUEST: KitTranslateRequest = {
  messages: [
    { role: "system", content: "Answer with the tools." },
    { role: "user", content: [{ type: "text", text: "Weather in Paris and Rome?" }] },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: "call_1",
          type: "function",
          function: { name: "get_weather", arguments: '{"city":"Paris"}' },
        },
        {
          id: "call_2",
          type: "function",
          function: { name: "get_weather", arguments: { city: "Rome" } },
        },
      ],
    },
    { role: "tool", tool_call_id: "call_1", content: "Sunny, 21°C" },
    { role: "tool", tool_call_id: "call_2", content: "Rain, 14°C" },
    { role: "user", content: "And Berlin?" },
  ],
  tools: [
    {
      type: "function",
      function: {
        name: "get_weather",
        description: "Current weather",
        parameters: KIT_WEATHER_SCHEMA,
      },
    },
  ],
  toolChoice: "required",
  maxTokens: 256,
};

/** One scripted model turn, as the suite's `KitTurn`. */
interface Turn {
  id: string;
  text?: string;
  calls?: readonly { id: string; name: string; args: Record<string, unknown> }[];
  usage: Usage;
  stop?: "stop" | "length";
}

/** What the client scenarios need from the harness and the suite around them. */
export interface ClientContext {
  provider: string;
  apiKey: string;
  createClient: KitCreateClient;
  /** `translate` from `@toolnexus/client`, for the translate scenarios (skipped without it). */
  translate: KitTranslate["translate"] | undefined;
  /** `memoryRunStore` from `@toolnexus/client`, for the durable scenarios (skipped without it). */
  runStore: (() => RunStore) | undefined;
  /** Builds the model against the server, with that many retries. */
  model(baseUrl: string, retries?: number): Model;
  /** The provider's reply for a turn, JSON or streamed as the request asks. */
  reply(turn: Turn, request: RecordedRequest): MockReply;
  errorBody(status: number, message: string): unknown;
  errorReport: {
    http(status: number, report: KitErrorReport): unknown;
    body(report: KitErrorReport): unknown;
    stream(report: KitErrorReport): string;
  };
  isStream(request: RecordedRequest): boolean;
  turnIndex(request: RecordedRequest): number;
  toolResults(
    request: RecordedRequest,
  ): { callId?: string | undefined; name?: string | undefined; content: string }[];
  generatedCallIds: boolean;
}

type Vitest = typeof import("vitest");

const USAGE: Usage = { promptTokens: 11, completionTokens: 7, totalTokens: 18 };

/** The add tool, written against the core contract alone; it records the contexts it saw. */
function addTool(contexts: ToolContext[] = []): Tool {
  return {
    name: "add",
    description: "Add two numbers",
    inputSchema: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    },
    source: "custom",
    execute: async (args, ctx) => {
      if (ctx !== undefined) contexts.push(ctx);
      return { output: String(Number(args.a) + Number(args.b)), isError: false };
    },
  };
}

/** A tool that asks a human which environment to deploy to, then deploys. */
function deployTool(runs: { service: string; env: unknown }[]): Tool {
  return {
    name: "deploy",
    description: "Deploy a service",
    inputSchema: {
      type: "object",
      properties: { service: { type: "string" } },
      required: ["service"],
    },
    source: "custom",
    execute: async (args, ctx) => {
      if (ctx?.answer === undefined)
        return pending({ kind: "input", prompt: "Which environment?" });
      const env = ctx.answer.data?.env;
      runs.push({ service: String(args.service), env });
      return { output: `deployed ${String(args.service)} to ${String(env)}`, isError: false };
    },
  };
}

const ROUND_TRIP: Turn[] = [
  {
    id: "kit-loop-1",
    calls: [{ id: "call_kit_add", name: "add", args: { a: 2, b: 3 } }],
    usage: { promptTokens: 20, completionTokens: 10, totalTokens: 30 },
  },
  {
    id: "kit-loop-2",
    text: "2 + 3 = 5.",
    usage: { promptTokens: 40, completionTokens: 6, totalTokens: 46 },
  },
];

const PARALLEL: Turn[] = [
  {
    id: "kit-par-1",
    text: "Adding both.",
    calls: [
      { id: "call_kit_p1", name: "add", args: { a: 1, b: 2 } },
      { id: "call_kit_p2", name: "add", args: { a: 30, b: 40 } },
    ],
    usage: USAGE,
  },
  { id: "kit-par-2", text: "3 and 70.", usage: USAGE },
];

async function resultOf(events: AsyncIterable<KitRunEvent>): Promise<RunResult | undefined> {
  let result: RunResult | undefined;
  for await (const event of events) {
    if (event.type === "done") result = (event as { result?: RunResult }).result;
  }
  return result;
}

/** The rejection of a promise (`undefined` when it resolved). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
}

/** A call record without its timing, for comparing runs. */
function withoutTiming(result: RunResult | undefined) {
  return result?.toolCalls.map(({ durationMs: _durationMs, ...rest }) => rest);
}

/** Registers the client scenarios (inside the suite's own `describe`). */
export function clientScenarios(vitest: Vitest, ctx: ClientContext): void {
  const { afterEach, describe, expect, it } = vitest;
  const { createClient } = ctx;
  let server: MockServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const serve = async (reply: (request: RecordedRequest, index: number) => MockReply) => {
    await server?.close();
    server = await startMockServer(reply);
    return server;
  };
  /** Answers each request with the turn its transcript has reached. */
  const script = (turns: readonly Turn[]) =>
    serve((request) => {
      const turn = turns[ctx.turnIndex(request)];
      if (turn === undefined) return { status: 400, json: ctx.errorBody(400, "no such turn") };
      return ctx.reply(turn, request);
    });
  const model = (retries?: number) => ctx.model(server?.url ?? "", retries);

  for (const streamed of [false, true]) {
    const how = streamed ? "streamed" : "plain";
    it(`a tool round trip (${how}): the result, the tool's context and the result sent back`, async () => {
      await script(ROUND_TRIP);
      const contexts: ToolContext[] = [];
      const m = model();
      const client = createClient({ model: m, tools: [addTool(contexts)] });
      const result = streamed
        ? await resultOf(client.stream("What is 2 + 3?"))
        : await client.run("What is 2 + 3?", { sessionId: "s-kit" });
      expect(result).toMatchObject({
        status: "done",
        text: "2 + 3 = 5.",
        turns: 2,
        model: m.id,
        usage: { promptTokens: 60, completionTokens: 16, totalTokens: 76 },
      });
      if (result?.status === "done") expect(result.stopReason).toBe("stop");
      expect(result?.toolCalls.map((call) => [call.name, call.args, call.result])).toEqual([
        ["add", { a: 2, b: 3 }, { output: "5", isError: false }],
      ]);
      // The tool saw the provider's response id and call id.
      expect(contexts[0]?.messageId).toBe("kit-loop-1");
      if (!ctx.generatedCallIds) expect(contexts[0]?.callId).toBe("call_kit_add");
      if (!streamed) expect(contexts[0]?.sessionId).toBe("s-kit");
      expect(server?.requests).toHaveLength(2);
      const second = server?.requests[1] as RecordedRequest;
      expect(ctx.isStream(second)).toBe(streamed);
      const results = ctx.toolResults(second);
      expect(results.map((r) => r.content)).toEqual(["5"]);
      const sentBack = results[0];
      if (!ctx.generatedCallIds) expect(sentBack?.callId).toBe("call_kit_add");
      if (sentBack?.name !== undefined) expect(sentBack.name).toBe("add");
    });

    it(`parallel calls in one turn (${how})`, async () => {
      await script(PARALLEL);
      const client = createClient({ model: model(), tools: [addTool()] });
      const result = streamed
        ? await resultOf(client.stream("Add 1+2 and 30+40"))
        : await client.run("Add 1+2 and 30+40");
      expect(result).toMatchObject({ status: "done", text: "3 and 70.", turns: 2 });
      expect(result?.toolCalls.map((call) => call.result.output)).toEqual(["3", "70"]);
      const results = ctx.toolResults(server?.requests[1] as RecordedRequest);
      expect(results.map((r) => r.content)).toEqual(["3", "70"]);
      if (!ctx.generatedCallIds) {
        expect(results.map((r) => r.callId)).toEqual(["call_kit_p1", "call_kit_p2"]);
      }
    });
  }

  it("a streamed run has the same outcome as a plain run", async () => {
    for (const turns of [ROUND_TRIP, PARALLEL]) {
      await script(turns);
      const client = createClient({ model: model(), tools: [addTool()] });
      const plain = await client.run("go");
      const events: KitRunEvent[] = [];
      for await (const event of client.stream("go")) events.push(event);
      const last = events.at(-1) as { type: string; result?: RunResult } | undefined;
      expect(last?.type).toBe("done");
      const streamed = last?.result;
      expect(server?.requests.map((r) => ctx.isStream(r))).toEqual([false, false, true, true]);
      expect(streamed?.status).toBe(plain.status);
      expect(streamed?.text).toBe(plain.text);
      expect(streamed?.usage).toEqual(plain.usage);
      expect(withoutTiming(streamed)).toEqual(withoutTiming(plain));
      if (!ctx.generatedCallIds) expect(streamed?.messages).toEqual(plain.messages);
      const deltas = events.flatMap((e) =>
        e.type === "text" ? [(e as { delta?: string }).delta ?? ""] : [],
      );
      expect(deltas.join("")).toContain(plain.text);
    }
  });

  for (const status of [401, 429, 500]) {
    it(`a ${status}: run and stream reject with a RunError caused by the ProviderError`, async () => {
      const report: KitErrorReport = {
        status,
        message: `kit: the provider says ${status}`,
        type: "kit_error_type",
        code: "kit_error_code",
      };
      await serve(() => ({ status, json: ctx.errorReport.http(status, report) }));
      const client = createClient({ model: model(1), tools: [addTool()] });
      const fromRun = await rejection(client.run("hi"));
      const fromStream = await rejection(resultOf(client.stream("hi")));
      for (const error of [fromRun, fromStream]) {
        const runError = error as { code?: string; messages?: unknown; cause?: unknown };
        expect(runError?.code).toBe("model_failed");
        expect(runError.messages).toEqual([{ role: "user", content: "hi" }]);
        expect(runError.cause).toBeInstanceOf(ProviderError);
        expect(runError.cause).toMatchObject({
          code: "provider_http",
          provider: ctx.provider,
          status,
          providerMessage: report.message,
          retryable: status !== 401,
        });
        expect((error as Error).message).toContain(`HTTP ${status}: ${report.message}`);
        expect((error as Error).message).not.toContain(ctx.apiKey);
      }
      // 429 and 500 were retried once in each of the two runs; 401 never.
      expect(server?.requests).toHaveLength(status === 401 ? 2 : 4);
    });
  }

  const runStore = ctx.runStore;
  describe.skipIf(runStore === undefined)("durable runs", () => {
    it("a suspension halts the run, and a second client resumes it from the store", async () => {
      await script([
        {
          id: "kit-ship-1",
          calls: [{ id: "call_kit_deploy", name: "deploy", args: { service: "api" } }],
          usage: USAGE,
        },
        { id: "kit-ship-2", text: "Deployed api to staging.", usage: USAGE },
      ]);
      const runs: { service: string; env: unknown }[] = [];
      const store = runStore!();
      const first = createClient({ model: model(), tools: [deployTool(runs)], runs: store });
      const halted = await first.run("Ship the api");
      expect(halted.status).toBe("pending");
      if (halted.status !== "pending") return;
      expect(halted.pending).toMatchObject({ kind: "input", prompt: "Which environment?" });
      expect(server?.requests).toHaveLength(1);
      expect(runs).toEqual([]);

      // Another client (as in another process) sharing only the store and the configuration.
      const second = createClient({ model: model(), tools: [deployTool(runs)], runs: store });
      const answer: Answer = { id: halted.pending.id, ok: true, data: { env: "staging" } };
      const done = await second.resume(answer);
      expect(done).toMatchObject({ status: "done", text: "Deployed api to staging." });
      expect(runs).toEqual([{ service: "api", env: "staging" }]);
      expect(server?.requests).toHaveLength(2);
      // No new user turn: exactly one result, for the one call.
      const results = ctx.toolResults(server?.requests[1] as RecordedRequest);
      expect(results.map((r) => r.content)).toEqual(["deployed api to staging"]);
      if (!ctx.generatedCallIds) expect(results[0]?.callId).toBe("call_kit_deploy");
      // The same answer again returns the stored outcome and calls nothing; another conflicts.
      expect((await second.resume(answer)).text).toBe(done.text);
      const conflict = await rejection(second.resume({ ...answer, data: { env: "production" } }));
      expect(conflict).toMatchObject({ code: "answer_conflict" });
      expect(server?.requests).toHaveLength(2);
    });

    const key = ctx.apiKey;
    const report: KitErrorReport = {
      status: 400,
      message: `bad key ${key}`,
      type: key,
      code: `invalid_${key}`,
    };
    const replies: Record<string, () => MockReply> = {
      "an error event in a stream": () => ({ chunks: [ctx.errorReport.stream(report)] }),
      "an error in a 200 body": () => ({ json: ctx.errorReport.body(report) }),
    };
    for (const [where, reply] of Object.entries(replies)) {
      it(`a key in ${where} never reaches the run store`, async () => {
        await serve(reply);
        const store = runStore!();
        const client = createClient({ model: model(0), tools: [addTool()], runs: store });
        const streamed = where.includes("stream");
        const error = (await rejection(
          streamed ? resultOf(client.stream("hi")) : client.run("hi"),
        )) as { runId?: string; cause?: unknown; stack?: string } | undefined;
        expect(error?.cause).toBeInstanceOf(ProviderError);
        const stored = await store.getRun(String(error?.runId));
        const everything = [
          inspect(error, { depth: 8 }),
          JSON.stringify(error?.cause),
          String(error?.stack),
          JSON.stringify(stored ?? {}),
        ].join("\n");
        expect(everything).not.toContain(key);
        expect(everything).toContain("[redacted]");
      });
    }
  });

  const translate = ctx.translate;
  describe.skipIf(translate === undefined)("translate (SPEC §11)", () => {
    const request = KIT_TRANSLATE_REQUEST;
    const usage: Usage = { promptTokens: 120, completionTokens: 18, totalTokens: 138 };

    it("a tool call comes back in OpenAI's terms, the transcript's results sent by call", async () => {
      await serve((req) =>
        ctx.reply(
          {
            id: "kit-translate",
            text: "Checking Berlin.",
            calls: [{ id: "call_3", name: "get_weather", args: { city: "Berlin" } }],
            usage,
          },
          req,
        ),
      );
      const m = model();
      const result = await translate!(m, request);
      const callId = result.toolCalls[0]?.id ?? "";
      expect(result).toEqual({
        text: "Checking Berlin.",
        toolCalls: [
          {
            id: ctx.generatedCallIds ? callId : "call_3",
            name: "get_weather",
            arguments: '{"city":"Berlin"}',
          },
        ],
        finishReason: "tool_calls",
        stopReason: "tool_calls",
        usage,
        model: m.id,
      });
      expect(callId).not.toBe("");
      const results = ctx.toolResults(server?.requests[0] as RecordedRequest);
      // The results of the transcript's last tool turn (followed by the user's text).
      if (results.length > 0) {
        expect(results.map((r) => r.content)).toEqual(["Sunny, 21°C", "Rain, 14°C"]);
      }
    });

    it("finish reasons: stop and length", async () => {
      for (const stop of ["stop", "length"] as const) {
        await serve((req) => ctx.reply({ id: "kit-fin", text: "Berlin is", usage, stop }, req));
        const result = await translate!(model(), request);
        expect(result).toMatchObject({ text: "Berlin is", finishReason: stop, toolCalls: [] });
      }
    });
  });
}
