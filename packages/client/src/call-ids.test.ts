import { type Lease, pending, type RunStore, type ToolContext } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createClient } from "./client.js";
import { memoryRunStore } from "./memory-stores.js";
import { scriptedModel } from "./testing.js";

/** A payment API that deduplicates on the idempotency key, as real ones do. */
function paymentApi() {
  const charged = new Map<string, number>();
  const charge = nativeTool({
    name: "charge",
    description: "charges a card, once per idempotency key",
    input: z.object({ amount: z.number() }),
    ctx: true,
    run: ({ amount }, ctx: ToolContext) => {
      const key = `${ctx.runId}:${ctx.callId}`;
      if (!charged.has(key)) charged.set(key, amount);
      return `charged ${charged.get(key)}`;
    },
  });
  return { charged, charge };
}

/** Two turns whose calls reuse the provider id `call_0`. */
function reusingTurns() {
  return [
    { toolCalls: [{ id: "call_0", name: "charge", arguments: { amount: 10 } }] },
    { toolCalls: [{ id: "call_0", name: "charge", arguments: { amount: 25 } }] },
    { content: "paid twice" },
  ];
}

describe("ctx.callId is unique within a run", () => {
  it("gives a call that reuses an earlier turn's id its own key; the provider keeps its id", async () => {
    const api = paymentApi();
    const model = scriptedModel(reusingTurns());
    const result = await createClient({ model, tools: [api.charge] }).run("pay 10 then 25");
    expect(result.status).toBe("done");
    expect([...api.charged.entries()]).toEqual([
      [`${result.runId}:call_0`, 10],
      [`${result.runId}:call_0@2.0`, 25],
    ]);
    // What goes back to the provider pairs each result with the id the provider sent.
    const seen = model.requests[2]!.messages;
    const calls = seen.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []) : []));
    expect(calls.map((c) => c.id)).toEqual(["call_0", "call_0"]);
    expect(seen.filter((m) => m.role === "tool").map((m) => [m.callId, m.content])).toEqual([
      ["call_0", "charged 10"],
      ["call_0", "charged 25"],
    ]);
  });

  it("keeps a session's earlier runs out of it: a new run may use the id again as is", async () => {
    const api = paymentApi();
    const turns = () => [
      { toolCalls: [{ id: "call_0", name: "charge", arguments: { amount: 1 } }] },
      { content: "ok" },
    ];
    const model = scriptedModel([...turns(), ...turns()]);
    const client = createClient({ model, tools: [api.charge] });
    const a = await client.ask("pay", { sessionId: "s1" });
    const b = await client.ask("pay again", { sessionId: "s1" });
    expect([...api.charged.keys()]).toEqual([`${a.runId}:call_0`, `${b.runId}:call_0`]);
  });

  it("is the same key when the call runs again after an answer", async () => {
    const keys: string[] = [];
    const charge = nativeTool({
      name: "charge",
      description: "asks first, then charges",
      input: z.object({ amount: z.number() }),
      ctx: true,
      run: ({ amount }, ctx: ToolContext) => {
        keys.push(`${ctx.callId}#${ctx.attempt}`);
        if (ctx.answer === undefined)
          return pending({ kind: "approval", prompt: `charge ${amount}?` });
        return `charged ${amount}`;
      },
    });
    const store = memoryRunStore();
    const client = createClient({
      model: scriptedModel(reusingTurns()),
      tools: [charge],
      runs: store,
    });
    const first = await client.run("pay");
    if (first.status !== "pending") throw new Error("expected a halt");
    const second = await client.resume({ id: first.pending.id, ok: true });
    if (second.status !== "pending") throw new Error("expected a second halt");
    // A different client (another process) continues the second halt.
    const done = await createClient({
      model: scriptedModel(reusingTurns().slice(2)),
      tools: [charge],
      runs: store,
    }).resume({ id: second.pending.id, ok: true });
    expect(done.status).toBe("done");
    expect(keys).toEqual(["call_0#1", "call_0#1", "call_0@2.0#1", "call_0@2.0#1"]);
  });

  it("is the same key when a worker takes the run over and runs the reused call again", async () => {
    const store = memoryRunStore();
    // The first worker "dies" in turn 2: its renewals never reach the store.
    const deaf: RunStore = new Proxy(store, {
      get(target, key, receiver) {
        if (key === "renew") return (lease: Lease) => lease;
        return Reflect.get(target, key, receiver);
      },
    });
    const seen: string[] = [];
    let unblock!: () => void;
    const blocked = new Promise<void>((resolve) => {
      unblock = resolve;
    });
    let inTurnTwo!: () => void;
    const reachedTurnTwo = new Promise<void>((resolve) => {
      inTurnTwo = resolve;
    });
    const charge = nativeTool({
      name: "charge",
      description: "charges",
      input: z.object({ amount: z.number() }),
      ctx: true,
      run: async ({ amount }, ctx: ToolContext) => {
        seen.push(`${ctx.runId}:${ctx.callId}#${ctx.attempt}`);
        if (amount === 25 && ctx.attempt === 1) {
          inTurnTwo();
          await blocked;
        }
        return `charged ${amount}`;
      },
    });
    const first = createClient({
      model: scriptedModel(reusingTurns()),
      tools: [charge],
      runs: deaf,
      leaseMs: 60,
    });
    const running = first.run("pay", { durable: true }).catch((e: unknown) => e);
    await reachedTurnTwo;
    const runId = seen[0]!.split(":")[0]!;
    // Wait for the lease to run out, then take the run over by id.
    const second = createClient({
      model: scriptedModel(reusingTurns().slice(2)),
      tools: [charge],
      runs: store,
    });
    let done: Awaited<ReturnType<typeof second.continueRun>> | undefined;
    while (done === undefined) {
      const info = await store.getRun(runId);
      if (info?.state === "running" && Date.parse(info.leaseExpiresAt!) < Date.now()) {
        done = await second.continueRun(runId);
      } else await new Promise((resolve) => setTimeout(resolve, 20));
    }
    unblock();
    expect(await running).toMatchObject({ code: "lease_lost" });
    expect(done.status).toBe("done");
    expect(seen).toEqual([`${runId}:call_0#1`, `${runId}:call_0@2.0#1`, `${runId}:call_0@2.0#2`]);
  }, 60_000);
});
