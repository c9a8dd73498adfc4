import { type DueTimer, pending, type Tool, type ToolContext } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import { createClient } from "./client.js";
import { memoryRunStore } from "./memory-stores.js";
import { scriptedModel } from "./testing.js";

const HOUR = 3_600_000;

/** Asks where to deploy (reminded at 1 h and 2 h, escalated to `leads` at 3 h), then deploys. */
function deployTool(expiresAt?: number): Tool {
  return {
    name: "deploy",
    description: "deploy",
    inputSchema: { type: "object" },
    source: "custom",
    waitRules: {
      remindAfterMs: [HOUR, 2 * HOUR],
      escalate: { afterMs: 3 * HOUR, to: "leads" },
      onExpiry: { ok: true, data: { env: "staging" } },
    },
    async execute(_args, ctx?: ToolContext) {
      if (ctx?.answer === undefined) {
        return pending({
          kind: "input",
          prompt: "Where to?",
          data: { to: "devs" },
          ...(expiresAt === undefined ? {} : { expiresAt }),
        });
      }
      return {
        output: `deployed to ${String(ctx.answer.data?.env)} (ok: ${ctx.answer.ok})`,
        isError: false,
      };
    },
  };
}

function setup(expiresAt?: number) {
  const runs = memoryRunStore();
  const model = scriptedModel([
    { toolCalls: [{ id: "c1", name: "deploy", arguments: {} }] },
    { content: "done" },
  ]);
  return { runs, client: createClient({ model, tools: [deployTool(expiresAt)], runs }) };
}

/** A worker whose clock the test sets; `next(n)` resolves once `n` more timers fired. */
function worker(client: ReturnType<typeof setup>["client"], clock: { now: number }) {
  const fired: DueTimer[] = [];
  let waiting: { count: number; resolve: () => void } | undefined;
  const controller = new AbortController();
  const done = client.work({
    signal: controller.signal,
    pollMs: 5,
    now: () => clock.now,
    onDue: (due) => {
      fired.push(due);
      if (waiting !== undefined && fired.length >= waiting.count) waiting.resolve();
    },
  });
  return {
    fired,
    until: (count: number) =>
      fired.length >= count
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            waiting = { count, resolve };
          }),
    stop: async () => {
      controller.abort();
      return done;
    },
  };
}

describe("reminders, escalation and the expiry default", () => {
  it("fires each reminder once, then escalates and re-addresses the request", async () => {
    const { runs, client } = setup();
    const halted = await client.run("deploy");
    if (halted.status !== "pending") throw new Error("expected a halt");
    const asked = Date.now();
    const clock = { now: asked + HOUR + 1 };
    const w = worker(client, clock);
    try {
      await w.until(1);
      expect(w.fired.map((d) => d.kind)).toEqual(["reminder"]);
      clock.now = asked + 3 * HOUR + 1;
      await w.until(3);
      expect(w.fired.map((d) => [d.kind, d.index])).toEqual([
        ["reminder", 0],
        ["reminder", 1],
        ["escalation", 2],
      ]);
      const escalation = w.fired[2]!;
      expect(escalation).toMatchObject({ to: "leads", runId: halted.runId });
      expect(escalation.request.data?.to).toBe("leads");
      expect((await runs.getRequest(halted.pending.id))?.request.data?.to).toBe("leads");
      // Nothing more is due: a later claim by anyone hands out nothing.
      expect(runs.claimDue({ now: asked + 10 * HOUR, owner: "other" })).toEqual([]);
    } finally {
      const summary = await w.stop();
      expect(summary.due).toBe(3);
    }
  });

  it("an answered request's timers never fire", async () => {
    const { runs, client } = setup();
    const halted = await client.run("deploy");
    if (halted.status !== "pending") throw new Error("expected a halt");
    await client.answer({ id: halted.pending.id, ok: true, data: { env: "prod" } });
    expect(runs.claimDue({ now: Date.now() + 10 * HOUR, owner: "w" })).toEqual([]);
  });

  it("on expiry the tool's default answer applies", async () => {
    const { client } = setup(Date.now() - 1);
    const halted = await client.run("deploy");
    if (halted.status !== "pending") throw new Error("expected a halt");
    const result = await client.continueRun(halted.runId);
    expect(result.status).toBe("done");
    expect(result.toolCalls.find((c) => c.name === "deploy")?.result.output).toBe(
      "deployed to staging (ok: true)",
    );
  });
});
