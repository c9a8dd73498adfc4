// Sub-agents (agentTool) under one instrumentation: a human's answer is measured once, where it
// was given; a child's spans nest under the parent's call with or without a context manager; a
// takeover after a crash reattaches to the child run without a failed span.
import { context, SpanStatusCode } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import {
  agentTool,
  type ClientOptions,
  createClient,
  memoryRunStore,
  type WaitFor,
} from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import type { Lease, ModelRequest, RunStore, Tool } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type OtelInstrumentation, otelInstrumentation } from "./index.js";
import {
  exporter,
  finished,
  idOf,
  installTracing,
  parentOf,
  spanNamed,
  testMeter,
} from "./test-sdk.js";

beforeAll(installTracing);
beforeEach(() => exporter.reset());

/** A model that calls `call` first, then reports the tool's result (so a fresh one can resume). */
function level(
  who: string,
  call: { id: string; name: string; arguments: Record<string, unknown> },
) {
  const turn = (request: ModelRequest) => {
    const last = request.messages.at(-1);
    return last?.role === "tool" ? { content: `${who}: ${last.content}` } : { toolCalls: [call] };
  };
  return scriptedModel(
    Array.from({ length: 10 }, () => turn),
    { id: `test:${who}` },
  );
}

/** A lookup tool that asks for an approval before it runs. */
const approvedLookup = nativeTool({
  name: "lookup",
  description: "looks a thing up, once approved",
  needsApproval: true,
  run: () => "found otters",
});

/** lead -> research (agent "researcher") -> search (agent "searcher") -> lookup. */
function team(options: {
  instrumentation: OtelInstrumentation;
  lookup?: Tool;
  waitFor?: WaitFor;
  runs?: { lead: RunStore; researcher: RunStore; searcher: RunStore };
  leaseMs?: number;
}) {
  const common = (who: "lead" | "researcher" | "searcher"): Partial<ClientOptions> => ({
    agent: who,
    instrumentation: options.instrumentation,
    ...(options.runs === undefined ? {} : { runs: options.runs[who] }),
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
  });
  const searcher = createClient({
    model: level("searcher", { id: "g1", name: "lookup", arguments: { q: "otters" } }),
    tools: [options.lookup ?? approvedLookup],
    ...common("searcher"),
  });
  const researcher = createClient({
    model: level("researcher", { id: "c1", name: "search", arguments: { prompt: "otters" } }),
    tools: [agentTool(searcher, { name: "search", description: "searches" })],
    ...common("researcher"),
  });
  const lead = createClient({
    model: level("lead", { id: "r1", name: "research", arguments: { prompt: "otters" } }),
    tools: [agentTool(researcher, { name: "research", description: "researches" })],
    ...common("lead"),
    ...(options.waitFor === undefined ? {} : { waitFor: options.waitFor }),
  });
  return { lead, researcher, searcher };
}

function agentSpans(agent: string, spans = finished()): ReadableSpan[] {
  return spans.filter((span) => span.name === `invoke_agent ${agent}`);
}

function waitedEvents(spans = finished()) {
  return spans.flatMap((span) =>
    span.events
      .filter((event) => event.name === "toolnexus.human.waited")
      .map((event) => ({ span: span.name, attributes: event.attributes })),
  );
}

describe("a human's answer in a sub-agent tree", () => {
  it("waitFor at the root: one answer is one wait, measured in_process at the root only", async () => {
    const { meter, collect } = testMeter();
    const { lead } = team({
      instrumentation: otelInstrumentation({ meter }),
      waitFor: (request) => ({ id: request.id, ok: true }),
    });
    const done = await lead.run("find otters");
    expect(done.text).toBe("lead: researcher: searcher: found otters");

    const waits = (await collect()).get("toolnexus.human.wait.duration");
    expect(waits?.series.map(({ attributes, count }) => ({ attributes, count }))).toEqual([
      {
        attributes: {
          "toolnexus.request.kind": "approval",
          "toolnexus.answer.outcome": "ok",
          "toolnexus.human.wait.mode": "in_process",
          "gen_ai.agent.name": "lead",
        },
        count: 1,
      },
    ]);
    expect(waitedEvents().map(({ span }) => span)).toEqual(["invoke_agent lead"]);
    // The lower levels still show their continuation, just no second count of the wait.
    expect(agentSpans("researcher").length).toBeGreaterThanOrEqual(2);
    expect(agentSpans("searcher").length).toBeGreaterThanOrEqual(2);
  });

  it("a durable halt resumed at the root: one wait, measured durable at the root only", async () => {
    const { meter, collect } = testMeter();
    const runs = {
      lead: memoryRunStore(),
      researcher: memoryRunStore(),
      searcher: memoryRunStore(),
    };
    const first = team({ instrumentation: otelInstrumentation({ meter }), runs });
    const halted = await first.lead.run("find otters");
    if (halted.status !== "pending") throw new Error("expected the root to halt");
    expect(halted.pending.route).toEqual({ agent: "searcher", path: ["research", "search"] });

    // "Another process": fresh clients and a fresh instrumentation over the same stores.
    const second = team({ instrumentation: otelInstrumentation({ meter }), runs });
    const done = await second.lead.resume({ id: halted.pending.id, ok: true });
    expect(done.text).toBe("lead: researcher: searcher: found otters");

    const waits = (await collect()).get("toolnexus.human.wait.duration");
    expect(waits?.series.map(({ attributes, count }) => ({ attributes, count }))).toEqual([
      {
        attributes: {
          "toolnexus.request.kind": "approval",
          "toolnexus.answer.outcome": "ok",
          "toolnexus.human.wait.mode": "durable",
          "gen_ai.agent.name": "lead",
        },
        count: 1,
      },
    ]);
    const events = waitedEvents();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      span: "invoke_agent lead",
      attributes: { "toolnexus.request.id": halted.pending.id },
    });
  });
});

describe("sub-agent spans", () => {
  it("nest under the parent's execute_tool span without a context manager: one trace", async () => {
    context.disable();
    try {
      const { lead } = team({
        instrumentation: otelInstrumentation(),
        lookup: nativeTool({ name: "lookup", description: "looks up", run: () => "otters" }),
      });
      await lead.run("find otters");
    } finally {
      installTracing();
    }
    const spans = finished();
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
    const researcher = spanNamed("invoke_agent researcher");
    const searcher = spanNamed("invoke_agent searcher");
    expect(parentOf(researcher)).toBe(idOf(spanNamed("execute_tool research")));
    expect(parentOf(searcher)).toBe(idOf(spanNamed("execute_tool search")));
    expect(parentOf(spanNamed("execute_tool lookup"))).toBe(idOf(searcher));
    expect(parentOf(spanNamed("invoke_agent lead"))).toBeUndefined();
  });

  it("nest the same way with the AsyncLocalStorage context manager", async () => {
    const { lead } = team({
      instrumentation: otelInstrumentation(),
      lookup: nativeTool({ name: "lookup", description: "looks up", run: () => "otters" }),
    });
    await lead.run("find otters");
    expect(new Set(finished().map((span) => span.spanContext().traceId)).size).toBe(1);
    expect(parentOf(spanNamed("invoke_agent researcher"))).toBe(
      idOf(spanNamed("execute_tool research")),
    );
    expect(parentOf(spanNamed("invoke_agent searcher"))).toBe(
      idOf(spanNamed("execute_tool search")),
    );
  });

  it("continueRun after the first process died mid-call: the reattached child ends OK, not run_exists", async () => {
    const runs = {
      lead: memoryRunStore(),
      researcher: memoryRunStore(),
      searcher: memoryRunStore(),
    };
    // The first process "dies" (SIGKILL): its lease renewals never reach the store again, its
    // tool never returns, and none of its open spans ever ends.
    const deaf = (store: RunStore): RunStore =>
      new Proxy(store, {
        get(target, key, receiver) {
          if (key === "renew") return (lease: Lease) => lease;
          return Reflect.get(target, key, receiver);
        },
      });
    let reached!: () => void;
    const inFlight = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const attempts: number[] = [];
    const lookup = nativeTool({
      name: "lookup",
      description: "hangs in the first process",
      ctx: true,
      run: (_args, ctx) => {
        attempts.push(ctx.attempt ?? 0);
        if (ctx.attempt === 1) {
          reached();
          return new Promise<string>(() => {});
        }
        return "otters";
      },
    });
    const first = team({
      instrumentation: otelInstrumentation(),
      lookup,
      runs: {
        lead: deaf(runs.lead),
        researcher: deaf(runs.researcher),
        searcher: deaf(runs.searcher),
      },
      leaseMs: 50,
    });
    void first.lead.run("find otters", { durable: true, runId: "root-1" });
    await inFlight;
    const before = new Set(finished());

    const second = team({ instrumentation: otelInstrumentation(), lookup, runs });
    // Waits for the dead process's leases to run out, then takes the run over.
    const done = await second.lead.continueRun("root-1");
    expect(done.status).toBe("done");
    expect(done.text).toBe("lead: researcher: searcher: otters");
    expect(attempts).toEqual([1, 2]);

    const spans = finished().filter((span) => !before.has(span));
    const failed = spans.filter((span) => span.status.code === SpanStatusCode.ERROR);
    expect(failed.map((span) => [span.name, span.attributes["error.type"]])).toEqual([]);
    for (const agent of ["lead", "researcher", "searcher"]) {
      const [span, ...more] = agentSpans(agent, spans);
      expect(more).toEqual([]);
      expect(span?.attributes).toMatchObject({
        "toolnexus.run.kind": "continue",
        "toolnexus.run.status": "done",
      });
    }
    // The reattached children nest under the second process's calls.
    expect(parentOf(agentSpans("researcher", spans)[0]!)).toBe(
      idOf(spanNamed("execute_tool research", spans)),
    );
    expect(parentOf(agentSpans("searcher", spans)[0]!)).toBe(
      idOf(spanNamed("execute_tool search", spans)),
    );
  }, 60_000);
});
