// The client scenario set, run through this adapter against a local server that answers like
// the Chat Completions API: a tool round trip (its wire shape), a suspension with a durable
// resume in a second client, and a streamed run with the same outcome as a plain one.
// Parallel calls, retries, aborts and redaction are in the adapter kit (adapter-suite.test.ts).
import {
  AnswerConflictError,
  createClient,
  memoryRunStore,
  RunError,
  type RunResult,
  type ToolCallRecord,
} from "@toolnexus/client";
import { pending, type ToolContext } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import {
  type MockHandler,
  type MockServer,
  splitBytes,
  startMockServer,
} from "@toolnexus/provider-utils/testing";
import type { ChatCompletionCreateParams } from "openai/resources/chat/completions";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ProviderError } from "./index.js";
import { openai } from "./model.js";
import { completion, streamBody } from "./test-fixtures.js";
import type { ChatRequestBody } from "./wire.js";

interface Turn {
  id: string;
  text?: string;
  calls?: { id: string; name: string; arguments: string }[];
  usage: [prompt: number, completion: number];
}

/**
 * Answers each request with the turn whose number is the count of assistant messages already in
 * the transcript: as JSON for a plain request, as an SSE stream (cut into small byte chunks,
 * argument fragments split across them) for a streamed one.
 */
function scripted(turns: readonly Turn[]): MockHandler {
  return (request) => {
    const body = request.body as ChatRequestBody;
    const turn = turns[body.messages.filter((m) => m.role === "assistant").length];
    if (turn === undefined) {
      return { status: 400, json: { error: { message: "the script has no such turn" } } };
    }
    if (body.stream !== true) {
      return {
        json: completion({
          id: turn.id,
          text: turn.text ?? null,
          toolCalls: turn.calls ?? [],
          usage: turn.usage,
        }),
      };
    }
    const text = turn.text ?? "";
    const sse = streamBody({
      id: turn.id,
      text: text === "" ? [] : [text.slice(0, 3), text.slice(3)],
      toolCalls: (turn.calls ?? []).map((call) => ({
        id: call.id,
        name: call.name,
        fragments: [
          call.arguments.slice(0, 4),
          call.arguments.slice(4, 9),
          call.arguments.slice(9),
        ],
      })),
      usage: turn.usage,
    });
    // Cut inside a field name, inside the first argument fragment and inside [DONE].
    const cuts = [{ at: "data:", offset: 3 }];
    if (sse.includes('"arguments":"{')) cuts.push({ at: '"arguments":"{', offset: 14 });
    cuts.push({ at: "[DONE]", offset: 2 });
    return { chunks: splitBytes(sse, cuts) };
  };
}

let server: MockServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(turns: readonly Turn[]): Promise<MockServer> {
  server = await startMockServer(scripted(turns));
  return server;
}

function model(url: string) {
  return openai({
    model: "gpt-4o-mini",
    baseUrl: `${url}/v1`,
    apiKey: "sk-test-1234",
    retryBaseMs: 5,
  });
}

function sent(index: number): ChatRequestBody {
  const body = server?.requests[index]?.body as ChatRequestBody;
  body satisfies ChatCompletionCreateParams;
  return body;
}

function addTool(contexts: ToolContext[] = []) {
  return nativeTool({
    name: "add",
    description: "Add two numbers",
    input: z.object({ a: z.number(), b: z.number() }),
    ctx: true,
    run: ({ a, b }, ctx) => {
      contexts.push(ctx);
      return a + b;
    },
  });
}

/** A call record without its timing, for comparing runs. */
function calls(records: readonly ToolCallRecord[]) {
  return records.map(({ durationMs: _durationMs, ...rest }) => rest);
}

const roundTrip: Turn[] = [
  {
    id: "chatcmpl-turn1",
    calls: [{ id: "call_add", name: "add", arguments: '{"a": 2, "b": 3}' }],
    usage: [20, 10],
  },
  { id: "chatcmpl-turn2", text: "2 + 3 = 5.", usage: [40, 6] },
];

const parallel: Turn[] = [
  {
    id: "chatcmpl-par1",
    text: "Adding both.",
    calls: [
      { id: "call_1", name: "add", arguments: '{"a": 1, "b": 2}' },
      { id: "call_2", name: "add", arguments: '{"a": 30, "b": 40}' },
    ],
    usage: [25, 18],
  },
  { id: "chatcmpl-par2", text: "3 and 70.", usage: [60, 5] },
];

describe("client scenarios over @toolnexus/openai", () => {
  it("a tool round trip", async () => {
    await serve(roundTrip);
    const contexts: ToolContext[] = [];
    const client = createClient({ model: model(server?.url ?? ""), tools: [addTool(contexts)] });
    const result = await client.run("What is 2 + 3?", { sessionId: "s-round" });

    expect(result.status).toBe("done");
    expect(result.text).toBe("2 + 3 = 5.");
    expect(result.turns).toBe(2);
    expect(result.model).toBe("openai:gpt-4o-mini");
    expect(result.usage).toEqual({ promptTokens: 60, completionTokens: 16, totalTokens: 76 });
    expect(calls(result.toolCalls)).toEqual([
      {
        id: "call_add",
        name: "add",
        args: { a: 2, b: 3 },
        result: { output: "5", isError: false },
        status: "ok",
        timedOut: false,
      },
    ]);
    // The tool saw the provider's ids.
    expect(contexts[0]).toMatchObject({
      sessionId: "s-round",
      messageId: "chatcmpl-turn1",
      callId: "call_add",
    });
    // The second request carries the call (raw argument text) and its result.
    expect(server?.requests).toHaveLength(2);
    expect(sent(1).messages).toEqual([
      { role: "user", content: "What is 2 + 3?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_add",
            type: "function",
            function: { name: "add", arguments: '{"a": 2, "b": 3}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_add", content: "5" },
    ]);
    expect(sent(1).tools?.[0]?.function.name).toBe("add");
  });

  it("a suspension halts the run, and a second client resumes it durably", async () => {
    await serve([
      {
        id: "chatcmpl-ship1",
        calls: [{ id: "call_deploy", name: "deploy", arguments: '{"service": "api"}' }],
        usage: [30, 8],
      },
      { id: "chatcmpl-ship2", text: "Deployed api to staging.", usage: [50, 7] },
    ]);
    const runs: { service: string; env: unknown }[] = [];
    const deployTool = () =>
      nativeTool({
        name: "deploy",
        description: "Deploy a service",
        input: z.object({ service: z.string() }),
        ctx: true,
        run: ({ service }, ctx) => {
          if (ctx.answer === undefined) {
            return pending({ kind: "input", prompt: "Which environment?" });
          }
          runs.push({ service, env: ctx.answer.data?.env });
          return `deployed ${service} to ${String(ctx.answer.data?.env)}`;
        },
      });
    const store = memoryRunStore();

    const first = createClient({
      model: model(server?.url ?? ""),
      tools: [deployTool()],
      runs: store,
    });
    const halted = await first.run("Ship the api", { sessionId: "s-ship" });
    expect(halted.status).toBe("pending");
    if (halted.status !== "pending") throw new Error("expected a halt");
    expect(halted.pending).toMatchObject({ kind: "input", prompt: "Which environment?" });
    expect(server?.requests).toHaveLength(1);
    expect(runs).toEqual([]);

    // Another client (as in another process) sharing only the store and the configuration.
    const second = createClient({
      model: model(server?.url ?? ""),
      tools: [deployTool()],
      runs: store,
    });
    const answer = { id: halted.pending.id, ok: true, data: { env: "staging" } };
    const done = await second.resume(answer);
    expect(done.status).toBe("done");
    expect(done.text).toBe("Deployed api to staging.");
    expect(runs).toEqual([{ service: "api", env: "staging" }]);
    expect(server?.requests).toHaveLength(2);
    // No new user turn; exactly one tool result for the one call.
    expect(sent(1).messages).toEqual([
      { role: "user", content: "Ship the api" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_deploy",
            type: "function",
            function: { name: "deploy", arguments: '{"service": "api"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_deploy", content: "deployed api to staging" },
    ]);
    // The same answer again returns the stored outcome and calls nothing; another is a conflict.
    expect((await second.resume(answer)).text).toBe(done.text);
    await expect(second.resume({ ...answer, data: { env: "production" } })).rejects.toBeInstanceOf(
      AnswerConflictError,
    );
    expect(server?.requests).toHaveLength(2);
  });

  it("a streamed run has the same outcome as a plain run", async () => {
    for (const script of [roundTrip, parallel]) {
      await serve(script);
      const client = createClient({ model: model(server?.url ?? ""), tools: [addTool()] });
      const plain = await client.run("go");

      const events = [];
      for await (const event of client.stream("go")) events.push(event);
      const last = events.at(-1);
      if (last?.type !== "done") throw new Error("the stream ends with done");
      const streamed: RunResult = last.result;

      expect(server?.requests.map((r) => (r.body as ChatRequestBody).stream === true)).toEqual([
        false,
        false,
        true,
        true,
      ]);
      expect(streamed.status).toBe(plain.status);
      expect(streamed.text).toBe(plain.text);
      expect(streamed.usage).toEqual(plain.usage);
      expect(calls(streamed.toolCalls)).toEqual(calls(plain.toolCalls));
      expect(streamed.messages).toEqual(plain.messages);
      const deltas = events.flatMap((e) => (e.type === "text" ? [e.delta] : []));
      expect(deltas.length).toBeGreaterThan(1);
      expect(deltas.join("")).toContain(plain.text);
      await server?.close();
      server = undefined;
    }
  });
});

describe("provider errors reach the caller as the README shows", () => {
  const MESSAGES: Record<number, string> = {
    401: "Invalid API key",
    429: "Rate limit reached",
    500: "The server had an error",
  };
  const TYPES: Record<number, string> = {
    401: "authentication_error",
    429: "rate_limit_error",
    500: "api_error",
  };

  for (const status of [401, 429, 500]) {
    it(`a ${status}: run and stream reject with a RunError whose cause is the ProviderError`, async () => {
      server = await startMockServer(() => ({
        status,
        json: { error: { message: MESSAGES[status], type: TYPES[status] } },
      }));
      const client = createClient({
        model: openai({
          model: "m",
          baseUrl: server.url,
          apiKey: "sk-test-1234",
          retries: 1,
          retryBaseMs: 1,
        }),
        tools: [addTool()],
      });
      const fromRun = await client.run("hi").catch((thrown: unknown) => thrown);
      const fromStream = await (async () => {
        for await (const _event of client.stream("hi")) {
          // the first model call fails
        }
      })().catch((thrown: unknown) => thrown);

      for (const error of [fromRun, fromStream]) {
        // The documented way: a RunError (the transcript so far) caused by a ProviderError.
        if (!(error instanceof RunError)) throw new Error(`expected a RunError, got ${error}`);
        expect(error.code).toBe("model_failed");
        expect(error.messages).toEqual([{ role: "user", content: "hi" }]);
        if (!(error.cause instanceof ProviderError)) throw new Error("expected a ProviderError");
        expect(error.cause).toMatchObject({
          code: "provider_http",
          provider: "openai",
          status,
          providerMessage: MESSAGES[status],
          providerType: TYPES[status],
          retryable: status !== 401,
        });
        expect(error.message).toContain(`HTTP ${status}: ${MESSAGES[status]}`);
        expect(error.message).not.toContain("sk-test-1234");
      }
      // 429 and 500 were retried once, in each of the two runs; 401 never.
      expect(server.requests).toHaveLength(status === 401 ? 2 : 4);
    });
  }
});
