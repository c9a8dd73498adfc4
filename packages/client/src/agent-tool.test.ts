import {
  type ModelRequest,
  parseRequest,
  pending,
  type Request,
  type Tool,
  type ToolContext,
} from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { agentTool } from "./agent-tool.js";
import { createClient } from "./client.js";
import { memoryRunStore } from "./memory-stores.js";
import { scriptedModel } from "./testing.js";
import type { ClientOptions, RunEvent } from "./types.js";

const usage = { promptTokens: 10, completionTokens: 5 };

/**
 * A model deciding from the transcript (so a fresh one continues a resumed run): call the tool,
 * then report its result.
 */
function level(
  who: string,
  call: { id: string; name: string; arguments: Record<string, unknown> },
) {
  const turn = (request: ModelRequest) => {
    const last = request.messages.at(-1);
    return last?.role === "tool"
      ? { content: `${who}: ${last.content}`, usage }
      : { toolCalls: [call], usage };
  };
  return scriptedModel(Array.from({ length: 10 }, () => turn));
}

/** Three levels: root (agent "lead") -> research (agent "researcher") -> search (agent "searcher"). */
function team(options: {
  seen: ToolContext[];
  lookup?: Tool;
  root?: Partial<ClientOptions>;
  leaf?: Partial<ClientOptions>;
  middle?: Partial<ClientOptions>;
  researchTimeoutMs?: number;
}) {
  const lookup =
    options.lookup ??
    nativeTool({
      name: "lookup",
      description: "looks a thing up",
      input: z.object({ q: z.string() }),
      ctx: true,
      run: ({ q }, ctx) => {
        options.seen.push(ctx);
        return `found ${q}`;
      },
    });
  const searcher = createClient({
    model: level("searcher", { id: "g1", name: "lookup", arguments: { q: "otters" } }),
    tools: [lookup],
    agent: "searcher",
    extra: { level: "searcher" },
    ...options.leaf,
  });
  const researcher = createClient({
    model: level("researcher", { id: "c1", name: "search", arguments: { prompt: "otters" } }),
    tools: [agentTool(searcher, { name: "search", description: "searches" })],
    agent: "researcher",
    ...options.middle,
  });
  const lead = createClient({
    model: level("lead", { id: "r1", name: "research", arguments: { prompt: "otters" } }),
    tools: [
      agentTool(researcher, {
        name: "research",
        description: "researches",
        ...(options.researchTimeoutMs === undefined
          ? {}
          : { timeoutMs: options.researchTimeoutMs }),
      }),
    ],
    agent: "lead",
    ...options.root,
  });
  return { lead, researcher, searcher };
}

function balanced(
  messages: readonly { role: string; toolCalls?: { id: string }[]; callId?: string }[],
) {
  const calls = messages.flatMap((m) =>
    m.role === "assistant" ? (m.toolCalls ?? []).map((c) => c.id) : [],
  );
  const results = messages.flatMap((m) => (m.role === "tool" ? [m.callId] : []));
  return JSON.stringify(calls) === JSON.stringify(results);
}

describe("agentTool: sub-agents", () => {
  it("two levels: identity at each level, the final text up the chain, usage and events rolled up", async () => {
    const seen: ToolContext[] = [];
    const { lead } = team({ seen, root: { extra: { tenant: "acme", level: "root" } } });
    const events: RunEvent[] = [];
    for await (const event of lead.stream("find otters", { sessionId: "s-9" })) events.push(event);
    const done = events.at(-1);
    if (done?.type !== "done") throw new Error("expected a done event");
    expect(done.result.text).toBe("lead: researcher: searcher: found otters");
    // Three levels, two model turns each, 15 tokens a turn.
    expect(done.result.usage.totalTokens).toBe(6 * 15);
    expect(seen).toHaveLength(1);
    const leaf = seen[0]!;
    expect(leaf.agent).toBe("searcher");
    expect(leaf.sessionId).toBe("s-9");
    expect(leaf.callId).toBe("g1");
    // The parent's extra under the child's own.
    expect(leaf.extra).toEqual({ tenant: "acme", level: "searcher" });
    expect(leaf.runId).toMatch(/\/r1\/c1$/);
    // The grandchild's tool call reached the root's stream, wrapped once per level.
    const nested = events.filter((e) => e.type === "agent");
    const deep = nested.flatMap((e) =>
      e.type === "agent" && e.event.type === "agent" ? [e.event] : [],
    );
    expect(
      deep.some(
        (e) => e.type === "agent" && e.agent === "searcher" && e.event.type === "tool_call",
      ),
    ).toBe(true);
    expect(
      nested.every((e) => e.type === "agent" && e.agent === "researcher" && e.callId === "r1"),
    ).toBe(true);
    expect(balanced(done.result.messages)).toBe(true);
  });

  it("the parent's call budget stops the grandchild's tool", async () => {
    let aborted: unknown;
    const { lead } = team({
      seen: [],
      researchTimeoutMs: 80,
      lookup: nativeTool({
        name: "lookup",
        description: "hangs until stopped",
        ctx: true,
        run: (_a, ctx) =>
          new Promise<string>((resolve) => {
            ctx.signal?.addEventListener("abort", () => {
              aborted = ctx.signal?.reason;
              resolve("stopped");
            });
          }),
      }),
    });
    const done = await lead.run("find otters");
    expect(done.text).toBe("lead: timed out after 80ms");
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((aborted as DOMException | undefined)?.name).toBe("TimeoutError");
  });

  it("an approval asked in the grandchild is answered through the root's waitFor", async () => {
    const seen: ToolContext[] = [];
    const asked: Request[] = [];
    const { lead } = team({
      seen,
      lookup: nativeTool({
        name: "lookup",
        description: "needs approval",
        input: z.object({ q: z.string() }),
        needsApproval: true,
        ctx: true,
        run: ({ q }, ctx) => {
          seen.push(ctx);
          return `found ${q}`;
        },
      }),
      root: {
        waitFor: (request) => {
          asked.push(request);
          return { id: request.id, ok: true };
        },
      },
    });
    const done = await lead.run("find otters");
    expect(done.status).toBe("done");
    expect(done.text).toBe("lead: researcher: searcher: found otters");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      kind: "approval",
      route: { agent: "searcher", path: ["research", "search"] },
    });
    // An approval carries no data of its own, and the escalation adds none.
    expect(asked[0]!.data).toBeUndefined();
    expect(seen).toHaveLength(1);
    expect(seen[0]!.answer?.ok).toBe(true);
  });

  it("the same approval halts the root durably; fresh clients resume it, every level once", async () => {
    const stores = {
      lead: memoryRunStore(),
      researcher: memoryRunStore(),
      searcher: memoryRunStore(),
    };
    const seen: ToolContext[] = [];
    const approvalLookup = nativeTool({
      name: "lookup",
      description: "needs approval",
      input: z.object({ q: z.string() }),
      needsApproval: true,
      ctx: true,
      run: ({ q }, ctx) => {
        seen.push(ctx);
        return `found ${q}`;
      },
    });
    const first = team({
      seen,
      lookup: approvalLookup,
      root: { runs: stores.lead },
      middle: { runs: stores.researcher },
      leaf: { runs: stores.searcher },
    });
    const halted = await first.lead.run("find otters");
    if (halted.status !== "pending") throw new Error("expected the root to halt");
    expect(halted.pending.route).toEqual({ agent: "searcher", path: ["research", "search"] });
    expect(halted.pending.data).toBeUndefined();
    expect(seen).toHaveLength(0);
    // Each level waits on its own request.
    expect(stores.searcher.list({ state: "waiting" })).toHaveLength(1);
    expect(stores.researcher.list({ state: "waiting" })).toHaveLength(1);

    // "Another process": fresh clients over the same stores, models playing the turns left.
    const second = team({
      seen,
      lookup: approvalLookup,
      root: { runs: stores.lead },
      middle: { runs: stores.researcher },
      leaf: { runs: stores.searcher },
    });
    const done = await second.lead.resume({ id: halted.pending.id, ok: true });
    expect(done.status).toBe("done");
    expect(done.text).toBe("lead: researcher: searcher: found otters");
    expect(seen).toHaveLength(1);
    expect(balanced(done.messages)).toBe(true);
    for (const store of Object.values(stores)) {
      expect(store.list({ state: "waiting" })).toEqual([]);
    }
    const leafRun = stores.searcher.getRun(seen[0]!.runId!);
    expect(leafRun?.state).toBe("done");
    expect(balanced(leafRun!.result!.messages)).toBe(true);
    // A repeat of the answer changes nothing and runs nothing.
    expect((await second.lead.resume({ id: halted.pending.id, ok: true })).text).toBe(done.text);
    expect(seen).toHaveLength(1);
  });

  it("an escalated question keeps the asking tool's data as it was; the route says who asks", async () => {
    const seen: ToolContext[] = [];
    // The tool's own data uses the very keys the escalation route once overwrote.
    const own = { path: "/srv/app/config.yaml", agent: "deploy-bot", schema: { type: "string" } };
    const asked: Request[] = [];
    const { lead } = team({
      seen,
      lookup: nativeTool({
        name: "lookup",
        description: "asks which file",
        input: z.object({ q: z.string() }),
        ctx: true,
        run: ({ q }, ctx) => {
          seen.push(ctx);
          if (ctx.answer === undefined) {
            return pending({ kind: "input", prompt: "Which file?", data: own });
          }
          return `found ${q} in ${String(ctx.answer.data?.file)}`;
        },
      }),
      root: {
        waitFor: (request) => {
          asked.push(request);
          return { id: request.id, ok: true, data: { file: request.data?.path } };
        },
      },
    });
    const done = await lead.run("find otters");
    expect(done.text).toBe("lead: researcher: searcher: found otters in /srv/app/config.yaml");
    expect(asked).toHaveLength(1);
    expect(asked[0]!.data).toEqual(own);
    expect(asked[0]!.route).toEqual({ agent: "searcher", path: ["research", "search"] });
    // The route is wire data: it survives JSON and the wire parser.
    expect(parseRequest(JSON.stringify(asked[0])).route).toEqual(asked[0]!.route);
  });

  it("a child that asks twice: each question reaches the root's human in turn", async () => {
    const asked: string[] = [];
    const asker = {
      name: "twice",
      description: "asks a thing",
      inputSchema: { type: "object" },
      source: "custom",
      execute: async (_args: Record<string, unknown>, ctx?: ToolContext) =>
        ctx?.answer === undefined
          ? pending({ kind: "input", prompt: "first?" })
          : { output: `got ${String(ctx.answer.data?.v)}`, isError: false },
    };
    const child = createClient({
      model: scriptedModel([
        { toolCalls: [{ id: "a", name: "twice" }] },
        { toolCalls: [{ id: "b", name: "twice" }] },
        (request) => ({
          content: request.messages
            .flatMap((m) => (m.role === "tool" ? [m.content] : []))
            .join(", "),
        }),
      ]),
      tools: [asker],
      agent: "asker",
    });
    const root = createClient({
      model: scriptedModel([
        { toolCalls: [{ id: "r", name: "ask", arguments: { prompt: "go" } }] },
        (request) => ({ content: String(request.messages.at(-1)?.content) }),
      ]),
      tools: [agentTool(child, { name: "ask", description: "asks" })],
      waitFor: (request) => {
        asked.push(request.id);
        return { id: request.id, ok: true, data: { v: asked.length } };
      },
    });
    const done = await root.run("go");
    expect(done.text).toBe("got 1, got 2");
    expect(asked).toHaveLength(2);
    expect(new Set(asked).size).toBe(2);
  });

  it("an approval of the agent call itself starts the child (the answer is not the child's)", async () => {
    const child = createClient({
      model: scriptedModel([{ content: "hi from the helper" }]),
      agent: "helper",
    });
    const helper = {
      ...agentTool(child, { name: "helper", description: "d" }),
      needsApproval: true,
    };
    const parent = createClient({
      model: level("parent", { id: "h", name: "helper", arguments: { prompt: "go" } }),
      tools: [helper],
      waitFor: (request) => ({ id: request.id, ok: true }),
    });
    expect((await parent.run("go")).text).toBe("parent: hi from the helper");
  });

  it("a declined question is passed down: the asking tool is refused and every level finishes", async () => {
    const stores = {
      lead: memoryRunStore(),
      researcher: memoryRunStore(),
      searcher: memoryRunStore(),
    };
    const seen: ToolContext[] = [];
    const { lead } = team({
      seen,
      lookup: nativeTool({
        name: "lookup",
        description: "needs approval",
        needsApproval: true,
        ctx: true,
        run: (_a, ctx) => {
          seen.push(ctx);
          return "found";
        },
      }),
      root: {
        runs: stores.lead,
        waitFor: (request) => ({ id: request.id, ok: false, reason: "declined" }),
      },
      middle: { runs: stores.researcher },
      leaf: { runs: stores.searcher },
    });
    const done = await lead.run("find otters");
    expect(done.text).toBe(
      'lead: researcher: searcher: declined/expired: Allow lookup to run with {"q":"otters"}?',
    );
    expect(seen).toHaveLength(0);
    for (const store of [stores.researcher, stores.searcher]) {
      expect(store.list({ state: "waiting" })).toEqual([]);
      expect(store.list().every((summary) => summary.state === "applied")).toBe(true);
    }
  });

  it("a parent that gives up on the call ends the child run failed, so no worker finishes it later", async () => {
    const store = memoryRunStore();
    const child = createClient({
      model: scriptedModel([{ toolCalls: [{ id: "s", name: "slow" }] }, { content: "done" }]),
      tools: [
        nativeTool({
          name: "slow",
          description: "waits",
          ctx: true,
          run: (_a, ctx) =>
            new Promise<string>((resolve) =>
              ctx.signal?.addEventListener("abort", () => resolve("stopped")),
            ),
        }),
      ],
      agent: "slowpoke",
      runs: store,
    });
    const parent = createClient({
      model: level("parent", { id: "p", name: "delegate", arguments: { prompt: "go" } }),
      tools: [agentTool(child, { name: "delegate", description: "d", timeoutMs: 50 })],
    });
    const result = await parent.run("go");
    expect(result.text).toBe("parent: timed out after 50ms");
    // The child is ended after the parent moved on: wait for it (never a fixed delay).
    const childId = `${result.runId}/p`;
    for (let i = 0; i < 500 && store.getRun(childId)?.state !== "failed"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const childRun = store.getRun(childId);
    expect(childRun?.state).toBe("failed");
    expect(childRun?.lastError?.code).toBe("cancelled");
    // A worker of the child's agent finds nothing to do.
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    expect(await child.work({ signal: controller.signal, pollMs: 10 })).toMatchObject({
      claimed: 0,
    });
  });

  it("workers of two agents share a store: each continues only its own agent's runs", async () => {
    const store = memoryRunStore();
    const ask = nativeTool({
      name: "ask",
      description: "asks",
      ctx: true,
      run: (_a, ctx) => (ctx.answer ? "answered" : pending({ kind: "input", prompt: "?" })),
    });
    const make = (agent: string) =>
      createClient({
        model: level(agent, { id: "a", name: "ask", arguments: {} }),
        tools: [ask],
        agent,
        runs: store,
      });
    const alpha = make("alpha");
    const beta = make("beta");
    const a = await alpha.run("go");
    const b = await beta.run("go");
    if (a.status !== "pending" || b.status !== "pending") throw new Error("expected halts");
    await alpha.answer({ id: a.pending.id, ok: true });
    await beta.answer({ id: b.pending.id, ok: true });
    const controller = new AbortController();
    const texts: string[] = [];
    const working = alpha.work({
      signal: controller.signal,
      pollMs: 10,
      onResult: (result) => {
        texts.push(result.text);
        controller.abort();
      },
    });
    expect(await working).toMatchObject({ claimed: 1, finished: 1 });
    expect(texts).toEqual(["alpha: answered"]);
    expect(store.getRun(b.runId)?.state).toBe("ready");
    await expect(alpha.continueRun(b.runId)).rejects.toMatchObject({ code: "wrong_agent" });
    expect((await beta.continueRun(b.runId)).text).toBe("beta: answered");
  });
});
