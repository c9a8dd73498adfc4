// The client scenario set, run through this adapter against a local server that answers like
// the Messages API: a tool round trip (its wire shape), a suspension with a durable
// resume in a second client, and a streamed run with the same outcome as a plain one.
// Parallel calls, retries, aborts and redaction are in the adapter kit (adapter-suite.test.ts).

import { inspect } from "node:util";
import type { MessageCreateParams } from "@anthropic-ai/sdk/resources/messages";
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
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ProviderError } from "./index.js";
import { anthropic } from "./model.js";
import { message, streamBody } from "./test-fixtures.js";
import type { MessagesRequestBody } from "./wire.js";

interface Turn {
  id: string;
  text?: string;
  calls?: { id: string; name: string; input: Record<string, unknown> }[];
  usage: [input: number, output: number];
}

/**
 * Answers each request with the turn whose number is the count of assistant messages already in
 * the transcript: as JSON for a plain request, as an SSE stream (cut into small byte chunks,
 * `input_json_delta` fragments split across them) for a streamed one.
 */
function scripted(turns: readonly Turn[]): MockHandler {
  return (request) => {
    const body = request.body as MessagesRequestBody;
    const turn = turns[body.messages.filter((m) => m.role === "assistant").length];
    if (turn === undefined) {
      return {
        status: 400,
        json: {
          type: "error",
          error: { type: "invalid_request_error", message: "the script has no such turn" },
        },
      };
    }
    if (body.stream !== true) {
      return {
        json: message({
          id: turn.id,
          ...(turn.text === undefined ? {} : { text: turn.text }),
          toolUses: turn.calls ?? [],
          usage: turn.usage,
        }),
      };
    }
    const text = turn.text;
    const sse = streamBody({
      id: turn.id,
      ...(text === undefined ? {} : { text: [text.slice(0, 3), text.slice(3)] }),
      toolUses: (turn.calls ?? []).map((call) => {
        const json = JSON.stringify(call.input);
        return {
          id: call.id,
          name: call.name,
          fragments: [json.slice(0, 4), json.slice(4, 9), json.slice(9)],
        };
      }),
      usage: turn.usage,
    });
    // Cut inside an event name, inside the first JSON fragment and inside message_stop.
    const cuts = [{ at: "event:", offset: 3 }];
    if (sse.includes('"partial_json"')) cuts.push({ at: '"partial_json"', offset: 5 });
    cuts.push({ at: "message_stop", offset: 4 });
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
  return anthropic({
    model: "claude-sonnet-4-5",
    baseUrl: url,
    apiKey: "sk-ant-test-1234",
    retryBaseMs: 5,
  });
}

function sent(index: number): MessagesRequestBody {
  const body = server?.requests[index]?.body as MessagesRequestBody;
  body satisfies MessageCreateParams;
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
    id: "msg_turn1",
    calls: [{ id: "toolu_add", name: "add", input: { a: 2, b: 3 } }],
    usage: [20, 10],
  },
  { id: "msg_turn2", text: "2 + 3 = 5.", usage: [40, 6] },
];

const parallel: Turn[] = [
  {
    id: "msg_par1",
    text: "Adding both.",
    calls: [
      { id: "toolu_1", name: "add", input: { a: 1, b: 2 } },
      { id: "toolu_2", name: "add", input: { a: 30, b: 40 } },
    ],
    usage: [25, 18],
  },
  { id: "msg_par2", text: "3 and 70.", usage: [60, 5] },
];

describe("client scenarios over @toolnexus/anthropic", () => {
  it("a tool round trip", async () => {
    await serve(roundTrip);
    const contexts: ToolContext[] = [];
    const client = createClient({ model: model(server?.url ?? ""), tools: [addTool(contexts)] });
    const result = await client.run("What is 2 + 3?", { sessionId: "s-round" });

    expect(result.status).toBe("done");
    expect(result.text).toBe("2 + 3 = 5.");
    expect(result.turns).toBe(2);
    expect(result.model).toBe("anthropic:claude-sonnet-4-5");
    expect(result.usage).toEqual({ promptTokens: 60, completionTokens: 16, totalTokens: 76 });
    expect(calls(result.toolCalls)).toEqual([
      {
        id: "toolu_add",
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
      messageId: "msg_turn1",
      callId: "toolu_add",
    });
    // The second request carries the tool_use block and its tool_result.
    expect(server?.requests).toHaveLength(2);
    expect(sent(1).messages).toEqual([
      { role: "user", content: "What is 2 + 3?" },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "toolu_add", name: "add", input: { a: 2, b: 3 } }],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_add", content: "5", is_error: false }],
      },
    ]);
    expect(sent(1).tools?.[0]?.name).toBe("add");
  });

  it("a suspension halts the run, and a second client resumes it durably", async () => {
    await serve([
      {
        id: "msg_ship1",
        calls: [{ id: "toolu_deploy", name: "deploy", input: { service: "api" } }],
        usage: [30, 8],
      },
      { id: "msg_ship2", text: "Deployed api to staging.", usage: [50, 7] },
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
        content: [
          { type: "tool_use", id: "toolu_deploy", name: "deploy", input: { service: "api" } },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_deploy",
            content: "deployed api to staging",
            is_error: false,
          },
        ],
      },
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

      expect(server?.requests.map((r) => (r.body as MessagesRequestBody).stream === true)).toEqual([
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
        json: { type: "error", error: { type: TYPES[status], message: MESSAGES[status] } },
      }));
      const client = createClient({
        model: anthropic({
          model: "m",
          baseUrl: server.url,
          apiKey: "sk-ant-test-1234",
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
          provider: "anthropic",
          status,
          providerMessage: MESSAGES[status],
          providerType: TYPES[status],
          retryable: status !== 401,
        });
        expect(error.message).toContain(`HTTP ${status}: ${MESSAGES[status]}`);
        expect(error.message).not.toContain("sk-ant-test-1234");
      }
      // 429 and 500 were retried once, in each of the two runs; 401 never.
      expect(server.requests).toHaveLength(status === 401 ? 2 : 4);
    });
  }
});

describe("a key the server puts in error.type never reaches the run store", () => {
  const KEY = "sk-ant-test-1234";
  const errorBody = { type: "error", error: { type: KEY, message: `bad key ${KEY}` } };
  const replies = {
    "an SSE error event": () => ({
      chunks: [`event: error\ndata: ${JSON.stringify(errorBody)}\n\n`],
    }),
    "a 200 body of type error": () => ({ json: errorBody }),
  };
  for (const [where, reply] of Object.entries(replies)) {
    it(`${where}: the RunError, its cause and the stored lastError hold no key`, async () => {
      server = await startMockServer(reply);
      const store = memoryRunStore();
      const client = createClient({ model: model(server.url), tools: [addTool()], runs: store });
      const run = where.startsWith("an SSE")
        ? (async () => {
            for await (const _event of client.stream("hi")) {
              // the first model call fails
            }
          })()
        : client.run("hi");
      const error = await run.then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      if (!(error instanceof RunError)) throw new Error(`expected a RunError, got ${error}`);
      expect(error.cause).toBeInstanceOf(ProviderError);
      const stored = await store.getRun(error.runId);
      const everything = [
        inspect(error, { depth: 8 }),
        JSON.stringify(error.cause),
        String(error.stack),
        JSON.stringify(stored ?? {}),
      ].join("\n");
      expect(everything).not.toContain(KEY);
      expect(everything).toContain("[redacted]");
    });
  }
});
