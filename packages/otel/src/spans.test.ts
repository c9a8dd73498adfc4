import { context, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { createClient, memoryRunStore, type RunError } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import { pending } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { otelInstrumentation } from "./index.js";
import {
  everythingRecorded,
  exporter,
  finished,
  idOf,
  installTracing,
  parentOf,
  spanNamed,
  testMeter,
} from "./test-sdk.js";

const PROMPT = "Summarise the private note of Alice Example";
const ARGUMENT = "alice@example.com";
const RESULT = "the note says: meet at noon";

beforeAll(installTracing);
beforeEach(() => exporter.reset());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Two tools that each wait for the other to start, so they provably run at the same time. */
function parallelTools() {
  let started = 0;
  let release: () => void = () => {};
  const both = new Promise<void>((resolve) => {
    release = resolve;
  });
  const arrive = async () => {
    if (++started === 2) release();
    await both;
  };
  const lookup = nativeTool({
    name: "lookup",
    description: "looks a person up",
    run: async () => {
      await arrive();
      // The tool's own span, made with the global tracer and no parent given: it nests under
      // this call's execute_tool span because that span is active here.
      return trace.getTracer("tool").startActiveSpan("GET /people", async (span: Span) => {
        await sleep(5);
        span.end();
        return RESULT;
      });
    },
  });
  const add = nativeTool({
    name: "add",
    description: "adds",
    run: async () => {
      await arrive();
      return "5";
    },
  });
  return [lookup, add];
}

function twoCallsModel() {
  return scriptedModel(
    [
      {
        id: "resp_1",
        toolCalls: [
          { id: "call_lookup", name: "lookup", arguments: { email: ARGUMENT } },
          { id: "call_add", name: "add", arguments: { a: 2, b: 3 } },
        ],
        usage: { promptTokens: 11, completionTokens: 7 },
      },
      {
        id: "resp_2",
        content: "Alice meets at noon.",
        usage: { promptTokens: 30, completionTokens: 5 },
      },
    ],
    { id: "openai:gpt-test" },
  );
}

describe("spans of a run", () => {
  it("nests chat and parallel execute_tool spans under one invoke_agent span, with the conventions' attributes", async () => {
    const client = createClient({
      model: twoCallsModel(),
      tools: parallelTools(),
      agent: "helper",
      instrumentation: otelInstrumentation(),
    });
    const result = await client.run(PROMPT, { sessionId: "session-1" });
    expect(result.status).toBe("done");

    const spans = finished();
    expect(spans.map((span) => span.name).sort()).toEqual([
      "GET /people",
      "chat gpt-test",
      "chat gpt-test",
      "execute_tool add",
      "execute_tool lookup",
      "invoke_agent helper",
    ]);
    const run = spanNamed("invoke_agent helper");
    const chats = spans.filter((span) => span.name === "chat gpt-test");
    const lookup = spanNamed("execute_tool lookup");
    const add = spanNamed("execute_tool add");
    const own = spanNamed("GET /people");

    // The tree: one trace; chats and tools children of the run; the tool's own span under it.
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
    expect(parentOf(run)).toBeUndefined();
    for (const child of [...chats, lookup, add]) expect(parentOf(child)).toBe(idOf(run));
    expect(parentOf(own)).toBe(idOf(lookup));
    // The two calls overlapped in time: neither is the other's parent, both ran at once. Span
    // times are [seconds, nanoseconds] pairs: compare them as numbers, not as arrays.
    const ns = ([seconds, nanos]: [number, number]) =>
      BigInt(seconds) * 1_000_000_000n + BigInt(nanos);
    expect(ns(lookup.startTime) <= ns(add.endTime)).toBe(true);
    expect(ns(add.startTime) <= ns(lookup.endTime)).toBe(true);

    expect(run.kind).toBe(SpanKind.INTERNAL);
    expect(run.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "helper",
      "gen_ai.conversation.id": "session-1",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-test",
      "gen_ai.usage.input_tokens": 41,
      "gen_ai.usage.output_tokens": 12,
      "toolnexus.run.id": result.runId,
      "toolnexus.run.kind": "run",
      "toolnexus.run.status": "done",
      "toolnexus.run.turns": 2,
    });
    expect(run.status.code).toBe(SpanStatusCode.UNSET);

    const [first, second] = [...chats].sort(
      (a, b) => Number(a.attributes["toolnexus.turn"]) - Number(b.attributes["toolnexus.turn"]),
    );
    expect(first!.kind).toBe(SpanKind.CLIENT);
    expect(first!.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-test",
      "gen_ai.conversation.id": "session-1",
      "gen_ai.agent.name": "helper",
      "gen_ai.response.id": "resp_1",
      "gen_ai.response.finish_reasons": ["tool_call"],
      "gen_ai.usage.input_tokens": 11,
      "gen_ai.usage.output_tokens": 7,
      "toolnexus.turn": 1,
    });
    expect(second!.attributes).toMatchObject({
      "gen_ai.response.id": "resp_2",
      "gen_ai.response.finish_reasons": ["stop"],
      "toolnexus.turn": 2,
    });

    expect(lookup.kind).toBe(SpanKind.INTERNAL);
    expect(lookup.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "lookup",
      "gen_ai.tool.call.id": "call_lookup",
      "gen_ai.tool.type": "function",
      "gen_ai.conversation.id": "session-1",
      "gen_ai.agent.name": "helper",
      "toolnexus.tool.attempt": 1,
    });
    expect(add.attributes["gen_ai.tool.call.id"]).toBe("call_add");
    expect(lookup.status.code).toBe(SpanStatusCode.UNSET);
    expect(add.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("records no prompt, argument or result by default", async () => {
    const client = createClient({
      model: twoCallsModel(),
      tools: parallelTools(),
      systemPrompt: "You are the private assistant",
      instrumentation: otelInstrumentation(),
    });
    await client.run(PROMPT);
    const recorded = everythingRecorded();
    expect(recorded.length).toBeGreaterThan(20);
    for (const secret of [PROMPT, ARGUMENT, RESULT, "private assistant", "Alice meets at noon"]) {
      expect(recorded.filter((value) => value.includes(secret))).toEqual([]);
    }
    for (const key of [
      "gen_ai.input.messages",
      "gen_ai.output.messages",
      "gen_ai.tool.call.arguments",
      "gen_ai.tool.call.result",
    ]) {
      expect(recorded).not.toContain(key);
    }
  });

  it("records prompts, arguments and results with recordContent: true", async () => {
    const client = createClient({
      model: twoCallsModel(),
      tools: parallelTools(),
      instrumentation: otelInstrumentation({ recordContent: true }),
    });
    await client.run(PROMPT);
    const run = spanNamed("invoke_agent");
    const input = JSON.parse(String(run.attributes["gen_ai.input.messages"]));
    expect(input).toEqual([{ role: "user", parts: [{ type: "text", content: PROMPT }] }]);
    expect(JSON.parse(String(run.attributes["gen_ai.output.messages"]))).toEqual([
      {
        role: "assistant",
        parts: [{ type: "text", content: "Alice meets at noon." }],
        finish_reason: "stop",
      },
    ]);

    const chats = finished().filter((span) => span.name === "chat gpt-test");
    const firstChat = chats.find((span) => span.attributes["toolnexus.turn"] === 1)!;
    expect(JSON.parse(String(firstChat.attributes["gen_ai.output.messages"]))).toEqual([
      {
        role: "assistant",
        parts: [
          { type: "tool_call", id: "call_lookup", name: "lookup", arguments: { email: ARGUMENT } },
          { type: "tool_call", id: "call_add", name: "add", arguments: { a: 2, b: 3 } },
        ],
        finish_reason: "tool_call",
      },
    ]);
    const secondChat = chats.find((span) => span.attributes["toolnexus.turn"] === 2)!;
    const history = JSON.parse(String(secondChat.attributes["gen_ai.input.messages"]));
    expect(history).toHaveLength(4);
    expect(history[2]).toEqual({
      role: "tool",
      parts: [{ type: "tool_call_response", id: "call_lookup", response: RESULT }],
    });

    const lookup = spanNamed("execute_tool lookup");
    expect(JSON.parse(String(lookup.attributes["gen_ai.tool.call.arguments"]))).toEqual({
      email: ARGUMENT,
    });
    expect(lookup.attributes["gen_ai.tool.call.result"]).toBe(RESULT);
  });

  it("gives a tool its own execute_tool span as ctx.traceCarrier (what an MCP server gets in _meta)", async () => {
    const seen: (Record<string, string> | undefined)[] = [];
    const probe = nativeTool({
      name: "probe",
      description: "reads its trace context",
      ctx: true,
      run: async (_args, ctx) => {
        await sleep(1);
        seen.push(ctx.traceCarrier?.());
        return "ok";
      },
    });
    const client = createClient({
      model: scriptedModel([
        {
          toolCalls: [
            { id: "p1", name: "probe" },
            { id: "p2", name: "probe" },
          ],
        },
        { content: "done" },
      ]),
      tools: [probe],
      instrumentation: otelInstrumentation(),
    });
    await client.run("go");
    const toolSpans = finished().filter((span) => span.name === "execute_tool probe");
    expect(toolSpans).toHaveLength(2);
    const { traceId } = spanNamed("invoke_agent").spanContext();
    // Each parallel call sees its own span, in the run's trace.
    expect(new Set(seen.map((carrier) => carrier?.traceparent))).toEqual(
      new Set(toolSpans.map((span) => `00-${traceId}-${span.spanContext().spanId}-01`)),
    );
  });

  it("gives each call its own span when the model reuses a call id across turns", async () => {
    const seen: { callId?: string; traceparent?: string }[] = [];
    const probe = nativeTool({
      name: "probe",
      description: "reads its trace context",
      ctx: true,
      run: (_args, ctx) => {
        seen.push({ callId: ctx.callId, traceparent: ctx.traceCarrier?.()?.traceparent });
        return "ok";
      },
    });
    const client = createClient({
      model: scriptedModel([
        { toolCalls: [{ id: "call_0", name: "probe" }] },
        { toolCalls: [{ id: "call_0", name: "probe" }] },
        { content: "done" },
      ]),
      tools: [probe],
      instrumentation: otelInstrumentation(),
    });
    await client.run("go");
    const toolSpans = finished().filter((span) => span.name === "execute_tool probe");
    expect(toolSpans).toHaveLength(2);
    const { traceId } = spanNamed("invoke_agent").spanContext();
    // The second call has a run-unique ctx.callId, and its carrier is still its own span.
    expect(new Set(seen.map((s) => s.callId)).size).toBe(2);
    expect(seen.map((s) => s.traceparent)).toEqual(
      toolSpans.map((span) => `00-${traceId}-${span.spanContext().spanId}-01`),
    );
  });

  it("marks a timed-out call 'timeout' and a tool error 'tool_error', without the error's text", async () => {
    const slow = nativeTool({
      name: "slow",
      description: "never finishes in time",
      timeoutMs: 20,
      ctx: true,
      run: (_args, ctx) =>
        new Promise((resolve) => ctx.signal?.addEventListener("abort", () => resolve("late"))),
    });
    const broken = nativeTool({
      name: "broken",
      description: "fails",
      run: () => {
        throw new Error(`cannot reach ${ARGUMENT}`);
      },
    });
    const client = createClient({
      model: scriptedModel([
        {
          toolCalls: [
            { id: "s", name: "slow" },
            { id: "b", name: "broken" },
          ],
        },
        { content: "sorry" },
      ]),
      tools: [slow, broken],
      instrumentation: otelInstrumentation(),
    });
    const result = await client.run("go");
    expect(result.status).toBe("done");

    const timedOut = spanNamed("execute_tool slow");
    expect(timedOut.status.code).toBe(SpanStatusCode.ERROR);
    expect(timedOut.attributes["error.type"]).toBe("timeout");
    const failed = spanNamed("execute_tool broken");
    expect(failed.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(failed.attributes["error.type"]).toBe("tool_error");
    expect(everythingRecorded().filter((value) => value.includes(ARGUMENT))).toEqual([]);
    // A failed tool call is the model's business: the run itself succeeded.
    expect(spanNamed("invoke_agent").status.code).toBe(SpanStatusCode.UNSET);
  });

  it("puts a tool error's text in the span status with recordContent: true", async () => {
    const broken = nativeTool({
      name: "broken",
      description: "fails",
      run: () => {
        throw new Error("disk full");
      },
    });
    const client = createClient({
      model: scriptedModel([{ toolCalls: [{ id: "b", name: "broken" }] }, { content: "sorry" }]),
      tools: [broken],
      instrumentation: otelInstrumentation({ recordContent: true }),
    });
    await client.run("go");
    const failed = spanNamed("execute_tool broken");
    expect(failed.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed.status.message).toContain("disk full");
  });

  it("marks a model call stopped by the run's deadline 'timeout'; the run ends incomplete", async () => {
    const client = createClient({
      model: {
        id: "anthropic:claude-test",
        generate: (_request, options) =>
          new Promise((_resolve, reject) => {
            options?.signal?.addEventListener("abort", () => reject(options.signal?.reason));
          }),
      },
      // Long enough that a loaded machine still starts the model call before the deadline
      // (a run already out of time ends without calling the model, and there is no chat span).
      timeoutMs: 1000,
      instrumentation: otelInstrumentation(),
    });
    const result = await client.run("go");
    expect(result).toMatchObject({ status: "incomplete", limit: "timeout" });
    const chat = spanNamed("chat claude-test");
    expect(chat.status.code).toBe(SpanStatusCode.ERROR);
    expect(chat.attributes).toMatchObject({
      "error.type": "timeout",
      "gen_ai.provider.name": "anthropic",
    });
    const run = spanNamed("invoke_agent");
    expect(run.attributes).toMatchObject({
      "toolnexus.run.status": "incomplete",
      "toolnexus.run.limit": "timeout",
    });
  });

  it("marks a failed model call and its run with the error's code", async () => {
    const client = createClient({
      model: {
        id: "flaky",
        generate: async () => {
          throw new Error("upstream answered 500");
        },
      },
      instrumentation: otelInstrumentation(),
    });
    const failure = (await client.run("go").catch((error: unknown) => error)) as RunError;
    expect(failure.code).toBe("model_failed");
    const chat = spanNamed("chat flaky");
    expect(chat.status.code).toBe(SpanStatusCode.ERROR);
    expect(chat.status.message).toContain("upstream answered 500");
    expect(chat.attributes["error.type"]).toBe("model_failed");
    // No provider prefix in the model's id: no provider is made up.
    expect(chat.attributes["gen_ai.provider.name"]).toBeUndefined();
    expect(chat.events.map((event) => event.name)).toEqual(["exception"]);
    const run = spanNamed("invoke_agent");
    expect(run.status.code).toBe(SpanStatusCode.ERROR);
    expect(run.attributes).toMatchObject({
      "error.type": "model_failed",
      "toolnexus.run.status": "error",
    });
  });

  it("marks a cancelled run 'cancelled' on its span and on the call it stopped", async () => {
    const controller = new AbortController();
    const waiting = nativeTool({
      name: "waiting",
      description: "waits for its signal",
      ctx: true,
      run: (_args, ctx) => {
        setTimeout(() => controller.abort(new Error("user left")), 5);
        return new Promise((resolve) => ctx.signal?.addEventListener("abort", () => resolve("x")));
      },
    });
    const client = createClient({
      model: scriptedModel([{ toolCalls: [{ id: "w", name: "waiting" }] }]),
      tools: [waiting],
      instrumentation: otelInstrumentation(),
    });
    const failure = (await client
      .run("go", { signal: controller.signal })
      .catch((error: unknown) => error)) as RunError;
    expect(failure.code).toBe("cancelled");
    const run = spanNamed("invoke_agent");
    expect(run.status.code).toBe(SpanStatusCode.ERROR);
    expect(run.attributes["error.type"]).toBe("cancelled");
    // A cancellation is no crash: no exception event.
    expect(run.events.filter((event) => event.name === "exception")).toEqual([]);
    const call = spanNamed("execute_tool waiting");
    expect(call.status.code).toBe(SpanStatusCode.ERROR);
    expect(call.attributes["error.type"]).toBe("cancelled");
  });

  it("nests the run under the caller's active span", async () => {
    const client = createClient({
      model: scriptedModel([{ content: "hi" }]),
      instrumentation: otelInstrumentation(),
    });
    await trace.getTracer("host").startActiveSpan("POST /chat", async (request: Span) => {
      await client.run("hello");
      request.end();
    });
    expect(parentOf(spanNamed("invoke_agent"))).toBe(idOf(spanNamed("POST /chat")));
  });

  it("reports the agentName and providerName it was given over the client's", async () => {
    const client = createClient({
      model: scriptedModel([{ content: "hi" }], { id: "openai:gpt-x" }),
      agent: "internal-id",
      instrumentation: otelInstrumentation({
        agentName: "Support Bot",
        providerName: "azure.ai.openai",
      }),
    });
    await client.run("hello");
    expect(spanNamed("invoke_agent Support Bot").attributes).toMatchObject({
      "gen_ai.agent.name": "Support Bot",
      "gen_ai.provider.name": "azure.ai.openai",
      "gen_ai.request.model": "gpt-x",
    });
  });
});

describe("suspensions", () => {
  const deploy = nativeTool({
    name: "deploy",
    description: "deploys after an approval",
    ctx: true,
    run: async (_args, ctx) => {
      if (ctx.answer === undefined) {
        return pending({ kind: "approval", prompt: `Deploy for ${ARGUMENT}?` });
      }
      return "deployed";
    },
  });

  it("waitFor: an event when the call suspends, the human's wait apart from the tool's time", async () => {
    const { meter, collect } = testMeter();
    const client = createClient({
      model: scriptedModel([{ toolCalls: [{ id: "d", name: "deploy" }] }, { content: "done" }]),
      tools: [deploy],
      waitFor: async (request) => {
        await sleep(60);
        return { id: request.id, ok: true, data: { token: "answer-secret-42" } };
      },
      instrumentation: otelInstrumentation({ meter }),
    });
    const result = await client.run("go");
    expect(result.status).toBe("done");

    const run = spanNamed("invoke_agent");
    const [suspended, waited] = run.events;
    expect(suspended?.name).toBe("toolnexus.suspended");
    const requestId = suspended?.attributes?.["toolnexus.request.id"];
    expect(typeof requestId).toBe("string");
    expect(suspended?.attributes).toEqual({
      "toolnexus.request.id": requestId,
      "toolnexus.request.kind": "approval",
      "gen_ai.tool.call.id": "d",
      "gen_ai.tool.name": "deploy",
    });
    expect(waited?.name).toBe("toolnexus.human.waited");
    expect(waited?.attributes).toMatchObject({
      "toolnexus.request.id": requestId,
      "toolnexus.request.kind": "approval",
      "toolnexus.answer.outcome": "ok",
      "toolnexus.human.wait.mode": "in_process",
      "gen_ai.tool.call.id": "d",
    });
    const waitedSeconds = Number(waited?.attributes?.["toolnexus.human.wait.duration"]);
    expect(waitedSeconds).toBeGreaterThanOrEqual(0.05);

    // Two executions of the call: the one that asked, the one after the answer.
    const executions = finished().filter((span) => span.name === "execute_tool deploy");
    expect(executions).toHaveLength(2);
    const [asked, answered] = [
      executions.find((span) => span.attributes["toolnexus.tool.suspended"] === true)!,
      executions.find((span) => span.attributes["toolnexus.answer.outcome"] === "ok")!,
    ];
    expect(asked.attributes).toMatchObject({
      "toolnexus.request.id": requestId,
      "toolnexus.request.kind": "approval",
    });
    expect(asked.status.code).toBe(SpanStatusCode.UNSET);
    expect(answered.attributes).toMatchObject({
      "toolnexus.request.id": requestId,
      "toolnexus.human.wait.duration": waitedSeconds,
    });
    // The two clocks: the human's wait (at least 60ms) lies between the two executions, in
    // neither of their spans.
    const ms = ([s, ns]: [number, number]) => s * 1e3 + ns / 1e6;
    expect(ms(answered.startTime) - ms(asked.endTime)).toBeGreaterThanOrEqual(55);

    const recorded = everythingRecorded();
    expect(recorded.filter((value) => value.includes("answer-secret-42"))).toEqual([]);
    expect(recorded.filter((value) => value.includes(ARGUMENT))).toEqual([]);

    const waits = (await collect()).get("toolnexus.human.wait.duration");
    expect(waits?.unit).toBe("s");
    expect(waits?.series).toEqual([
      {
        attributes: {
          "toolnexus.request.kind": "approval",
          "toolnexus.answer.outcome": "ok",
          "toolnexus.human.wait.mode": "in_process",
        },
        count: 1,
        sum: waitedSeconds,
      },
    ]);
  });

  it("records a suspension's prompt on the event only with recordContent: true", async () => {
    const client = createClient({
      model: scriptedModel([{ toolCalls: [{ id: "d", name: "deploy" }] }, { content: "done" }]),
      tools: [deploy],
      waitFor: (request) => ({ id: request.id, ok: false, reason: "declined" }),
      instrumentation: otelInstrumentation({ recordContent: true }),
    });
    await client.run("go");
    const [suspended, waited] = spanNamed("invoke_agent").events;
    expect(suspended?.attributes?.["toolnexus.request.prompt"]).toBe(`Deploy for ${ARGUMENT}?`);
    expect(waited?.attributes?.["toolnexus.answer.outcome"]).toBe("declined");
  });

  it("a durable halt resumed by a fresh client: the continuation links to the halted run's span", async () => {
    const store = memoryRunStore();
    const { meter, collect } = testMeter();
    const model = () =>
      scriptedModel([{ toolCalls: [{ id: "d", name: "deploy" }] }, { content: "deployed it" }], {
        id: "openai:gpt-test",
      });
    const first = createClient({
      model: model(),
      tools: [deploy],
      runs: store,
      agent: "ops",
      instrumentation: otelInstrumentation(),
    });
    const halted = await first.run("deploy please", { sessionId: "s-9" });
    if (halted.status !== "pending") throw new Error("expected a halt");
    const haltedRun = spanNamed("invoke_agent ops");
    expect(haltedRun.attributes).toMatchObject({
      "toolnexus.run.status": "pending",
      "toolnexus.run.kind": "run",
    });
    expect(haltedRun.events.map((event) => event.name)).toEqual(["toolnexus.suspended"]);

    // What the store keeps with the halted run: strings only, the run span's trace context.
    const stored = (await store.getRun(halted.runId))?.checkpoint?.trace;
    expect(stored?.traceparent).toBe(`00-${haltedRun.spanContext().traceId}-${idOf(haltedRun)}-01`);
    expect(JSON.parse(JSON.stringify(stored))).toEqual(stored);

    await sleep(40);
    exporter.reset();
    // Another process: a fresh client with its own instrumentation over the same store,
    // answering inside its own request span. The memory store keeps checkpoints as JSON text, so
    // the carrier it hands back has been through JSON, as from another process.
    const second = createClient({
      model: scriptedModel([{ content: "deployed it" }], { id: "openai:gpt-test" }),
      tools: [deploy],
      runs: store,
      agent: "ops",
      instrumentation: otelInstrumentation({ meter }),
    });
    const done = await trace
      .getTracer("host")
      .startActiveSpan("POST /answers", async (request: Span) => {
        const answer = await second.resume({ id: halted.pending.id, ok: true });
        request.end();
        return answer;
      });
    expect(done.status).toBe("done");

    const continued = spanNamed("invoke_agent ops");
    expect(continued.attributes).toMatchObject({
      "toolnexus.run.id": halted.runId,
      "toolnexus.run.kind": "continue",
      "toolnexus.run.status": "done",
      "gen_ai.conversation.id": "s-9",
    });
    // Linked to the halted run's span, a child of the request that answered.
    expect(continued.links).toHaveLength(1);
    expect(continued.links[0]?.context).toMatchObject({
      traceId: haltedRun.spanContext().traceId,
      spanId: idOf(haltedRun),
    });
    expect(continued.links[0]?.attributes).toEqual({ "toolnexus.link.type": "continues" });
    expect(parentOf(continued)).toBe(idOf(spanNamed("POST /answers")));

    const [waited] = continued.events;
    expect(waited?.name).toBe("toolnexus.human.waited");
    expect(waited?.attributes).toMatchObject({
      "toolnexus.request.id": halted.pending.id,
      "toolnexus.request.kind": "approval",
      "toolnexus.human.wait.mode": "durable",
      "toolnexus.answer.outcome": "ok",
    });
    const waitedSeconds = Number(waited?.attributes?.["toolnexus.human.wait.duration"]);
    expect(waitedSeconds).toBeGreaterThanOrEqual(0.035);
    const answered = spanNamed("execute_tool deploy");
    expect(parentOf(answered)).toBe(idOf(continued));
    expect(answered.attributes).toMatchObject({
      "toolnexus.request.id": halted.pending.id,
      "toolnexus.human.wait.duration": waitedSeconds,
    });
    expect(spanNamed("chat gpt-test").attributes["toolnexus.turn"]).toBe(2);

    const waits = (await collect()).get("toolnexus.human.wait.duration");
    expect(waits?.series).toEqual([
      {
        attributes: {
          "toolnexus.request.kind": "approval",
          "toolnexus.answer.outcome": "ok",
          "toolnexus.human.wait.mode": "durable",
          "gen_ai.agent.name": "ops",
        },
        count: 1,
        sum: waitedSeconds,
      },
    ]);
  });

  it("links a continuation through a JSON round-tripped carrier, and measures each sibling's wait", async () => {
    const instrumentation = otelInstrumentation();
    const askTwice = nativeTool({
      name: "ask",
      description: "asks",
      ctx: true,
      run: (_args, ctx) => (ctx.answer ? "ok" : pending({ kind: "input", prompt: "which?" })),
    });
    const store = memoryRunStore();
    const halted = await createClient({
      model: scriptedModel([
        {
          toolCalls: [
            { id: "a", name: "ask" },
            { id: "b", name: "ask" },
          ],
        },
      ]),
      tools: [askTwice],
      runs: store,
      instrumentation,
    }).run("go");
    if (halted.status !== "pending") throw new Error("expected a halt");
    const haltedRun = spanNamed("invoke_agent");
    const carrier = (await store.getRun(halted.runId))?.checkpoint?.trace;
    const [one, two] = halted.pendings;
    const asked = JSON.parse(String(carrier?.["toolnexus.asked_at"]));
    expect(Object.keys(asked).sort()).toEqual([one!.id, two!.id].sort());

    await sleep(25);
    exporter.reset();
    // The loop's side of a continuation, played by hand: one sibling answered, one still open.
    const roundTripped = JSON.parse(JSON.stringify(carrier)) as Record<string, string>;
    const continuation = instrumentation.startRun({
      runId: halted.runId,
      sessionId: undefined,
      agent: undefined,
      model: "scripted",
      kind: "continue",
      carrier: roundTripped,
      pending: [{ request: one!, answer: { id: one!.id, ok: true } }, { request: two! }],
      messages: [],
    });
    // The open sibling's suspension time travels on with the next halt.
    const next = continuation.carrier() ?? {};
    expect(JSON.parse(String(next["toolnexus.asked_at"]))).toEqual({ [two!.id]: asked[two!.id] });
    expect(next.traceparent).not.toBe(carrier?.traceparent);
    continuation.end({ result: { status: "pending", text: "which?", turns: 1 } });

    const continued = spanNamed("invoke_agent");
    expect(continued.links[0]?.context.spanId).toBe(idOf(haltedRun));
    const waits = continued.events.filter((event) => event.name === "toolnexus.human.waited");
    expect(waits.map((event) => event.attributes?.["toolnexus.request.id"])).toEqual([one!.id]);
    expect(Number(waits[0]?.attributes?.["toolnexus.human.wait.duration"])).toBeGreaterThanOrEqual(
      0.02,
    );
  });

  it("starts a continuation without a link when the carrier is missing or unreadable", () => {
    const instrumentation = otelInstrumentation();
    const carriers: (Record<string, string> | undefined)[] = [
      undefined,
      {},
      { traceparent: "garbage", "toolnexus.asked_at": "{not json", "toolnexus.halted_at": "x" },
    ];
    for (const carrier of carriers) {
      const run = instrumentation.startRun({
        runId: "run_x",
        sessionId: undefined,
        agent: undefined,
        model: "m",
        kind: "continue",
        ...(carrier === undefined ? {} : { carrier }),
        pending: [
          { request: { id: "r", kind: "input", prompt: "?" }, answer: { id: "r", ok: true } },
        ],
        messages: [],
      });
      run.end({ result: { status: "done", text: "", turns: 1 } });
    }
    const spans = finished();
    expect(spans).toHaveLength(3);
    for (const span of spans) {
      expect(span.links).toEqual([]);
      // No suspension time known: no wait is made up.
      expect(span.events).toEqual([]);
    }
  });
});

describe("context", () => {
  it("works without a context manager: spans still nest by explicit parents", async () => {
    context.disable();
    try {
      const client = createClient({
        model: twoCallsModel(),
        tools: parallelTools(),
        instrumentation: otelInstrumentation(),
      });
      await client.run("go");
      const run = spanNamed("invoke_agent");
      expect(parentOf(spanNamed("execute_tool add"))).toBe(idOf(run));
      expect(parentOf(spanNamed("execute_tool lookup"))).toBe(idOf(run));
    } finally {
      installTracing();
    }
  });
});
