import {
  type Model,
  type ModelStreamPart,
  pending,
  type RecordedRunEvent,
  type RunStore,
  StoreUnsupportedError,
  type ToolContext,
} from "@toolnexus/core";
import { sampleCheckpoint } from "@toolnexus/core/testing";
import { nativeTool } from "@toolnexus/native";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createClient } from "./client.js";
import { toModelResponse } from "./in-process-model.js";
import { memoryRunStore } from "./memory-stores.js";
import { scriptedModel } from "./testing.js";

/** A promise with its resolve, to hold a tool until the test lets it go. */
function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

async function collect(events: AsyncIterable<RecordedRunEvent>): Promise<RecordedRunEvent[]> {
  const seen: RecordedRunEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

/** A durable run that looks something up (the tool reports progress), then answers. */
function lookupClient(store: RunStore, hold?: { entered: () => void; release: Promise<void> }) {
  const lookup = nativeTool({
    name: "lookup",
    description: "Looks a city up",
    input: z.object({ city: z.string() }),
    ctx: true,
    run: async ({ city }, ctx: ToolContext) => {
      ctx.progress?.({ progress: 1, total: 2, message: "half way" });
      hold?.entered();
      await hold?.release;
      return `${city}: 21°C`;
    },
  });
  const model = scriptedModel([
    { toolCalls: [{ id: "call_1", name: "lookup", arguments: { city: "Oslo" } }] },
    { content: "It is 21°C in Oslo." },
  ]);
  return createClient({ model, tools: [lookup], runs: store });
}

describe("client.follow", () => {
  it("follows a durable run from its first event to done, while it runs", async () => {
    const store = memoryRunStore();
    const entered = gate();
    const release = gate();
    const client = lookupClient(store, { entered: entered.open, release: release.opened });
    const running = client.run("weather?", { durable: true, runId: "run_w" });
    await entered.opened;
    const following = collect(client.follow("run_w", { pollMs: 5_000 }));
    release.open();
    const result = await running;
    expect(result.status).toBe("done");
    const seen = await following;
    expect(seen.map((e) => e.type)).toEqual([
      "started",
      "turn",
      "tool_call",
      "progress",
      "tool_result",
      "turn",
      "text",
      "done",
    ]);
    expect(seen.map((e) => e.offset)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(seen[1]!.data).toEqual({ turn: 1 });
    expect(seen[2]!.data).toEqual({ callId: "call_1", name: "lookup", args: { city: "Oslo" } });
    expect(seen[3]!.data).toEqual({
      callId: "call_1",
      progress: 1,
      total: 2,
      message: "half way",
    });
    expect(seen[4]!.data).toEqual({
      callId: "call_1",
      name: "lookup",
      isError: false,
      timedOut: false,
      output: "Oslo: 21°C",
    });
    expect(seen[6]!.data).toEqual({ turn: 2, text: "It is 21°C in Oslo." });
    expect(seen[7]!.data).toEqual({ text: "It is 21°C in Oslo." });
    // The whole history, read afterwards, is what the follower saw.
    expect(await collect(client.follow("run_w"))).toEqual(seen);
  });

  it("a follower that stops after any event and follows again from its offset sees each once", async () => {
    const store = memoryRunStore();
    const client = lookupClient(store);
    await client.run("weather?", { durable: true, runId: "run_w" });
    const all = await collect(client.follow("run_w"));
    expect(all.length).toBe(8);
    for (let k = 1; k <= all.length; k++) {
      const seen: RecordedRunEvent[] = [];
      let after = 0;
      // Stop after k events, then after k more, and so on, each time from the last offset.
      for (let pass = 0; pass < all.length + 1; pass++) {
        let taken = 0;
        for await (const event of client.follow("run_w", { after })) {
          seen.push(event);
          after = event.offset;
          if (++taken === k) break;
        }
        if (taken < k) break;
      }
      expect(
        seen.map((e) => e.offset),
        `stopping every ${k}`,
      ).toEqual(all.map((e) => e.offset));
      expect(seen).toEqual(all);
    }
  });

  it("a follower that stops mid-run resumes from its offset, losing and repeating nothing", async () => {
    const store = memoryRunStore();
    const entered = gate();
    const release = gate();
    const client = lookupClient(store, { entered: entered.open, release: release.opened });
    const running = client.run("weather?", { durable: true, runId: "run_w" });
    await entered.opened;
    const first: RecordedRunEvent[] = [];
    for await (const event of client.follow("run_w")) {
      first.push(event);
      if (event.type === "tool_call") break;
    }
    release.open();
    await running;
    const rest = await collect(client.follow("run_w", { after: first.at(-1)!.offset }));
    const all = await collect(client.follow("run_w"));
    expect([...first, ...rest]).toEqual(all);
  });

  it("coalesces a streamed answer: 1,000 deltas are a handful of text events, the same text", async () => {
    const deltas = Array.from({ length: 1_000 }, (_, i) => `w${i} `);
    const text = deltas.join("");
    const model: Model = {
      id: "chatty",
      async generate() {
        return toModelResponse({ content: text });
      },
      async *stream(): AsyncIterable<ModelStreamPart> {
        for (const delta of deltas) yield { type: "text", delta };
        yield { type: "finish", response: toModelResponse({ content: text }) };
      },
    };
    const store = memoryRunStore();
    const client = createClient({ model, runs: store });
    let streamed = 0;
    for await (const event of client.stream("talk", { durable: true, runId: "run_s" })) {
      if (event.type === "text") streamed++;
    }
    expect(streamed).toBe(1_000);
    const events = await collect(client.follow("run_s"));
    const texts = events.filter((e) => e.type === "text");
    expect(texts.length).toBeGreaterThan(0);
    expect(texts.length).toBeLessThanOrEqual(Math.ceil(text.length / 4_000) + 1);
    expect(texts.map((e) => e.data.text).join("")).toBe(text);
    expect(events.map((e) => e.type)).toEqual([
      "started",
      "turn",
      ...texts.map(() => "text"),
      "done",
    ]);
  });

  it("a run in memory (not durable) records nothing", async () => {
    const store = memoryRunStore();
    const client = lookupClient(store);
    const result = await client.run("weather?", { runId: "run_m" });
    expect(result.status).toBe("done");
    expect(store.readEvents("run_m", 0)).toEqual([]);
    expect(store.getRun("run_m")).toBeUndefined();
  });

  it("keeps who answered: in getRequest, the answered event, and through resume", async () => {
    const deploy = nativeTool({
      name: "deploy",
      description: "Deploys after asking where",
      ctx: true,
      run: (_args, ctx) =>
        ctx.answer === undefined
          ? pending({ kind: "input", prompt: "Where to?" })
          : `deployed to ${String(ctx.answer.data?.env)}`,
    });
    const store = memoryRunStore();
    const model = scriptedModel(
      Array.from({ length: 4 }, (_, i) =>
        i % 2 === 0
          ? { toolCalls: [{ id: `call_${i}`, name: "deploy", arguments: {} }] }
          : { content: "done" },
      ),
    );
    const client = createClient({ model, tools: [deploy], runs: store });
    const halted = await client.run("ship it", { runId: "run_a" });
    expect(halted.status).toBe("pending");
    if (halted.status !== "pending") return;
    await client.answer(
      { id: halted.pending.id, ok: true, data: { env: "prod" } },
      { by: "alice@example.com" },
    );
    expect(await store.getRequest(halted.pending.id)).toMatchObject({
      state: "answered",
      answeredBy: "alice@example.com",
    });
    const done = await client.continueRun("run_a");
    expect(done.status).toBe("done");
    const events = await collect(client.follow("run_a"));
    const answered = events.filter((e) => e.type === "answered");
    expect(answered.map((e) => e.data)).toEqual([
      { requestId: halted.pending.id, ok: true, by: "alice@example.com" },
    ]);
    // The answer's data is not in its event (toEqual above): a follower may see less than the run.
    expect(events.at(-1)?.type).toBe("done");

    const again = await client.run("ship it again", { runId: "run_b" });
    if (again.status !== "pending") throw new Error("expected a halt");
    await client.resume({ id: again.pending.id, ok: true, data: { env: "dev" } }, { by: "bob" });
    expect((await store.getRequest(again.pending.id))?.answeredBy).toBe("bob");
  });

  it("refuses a store that keeps no events, and an unknown run, with typed errors", async () => {
    const inner = memoryRunStore();
    const { readEvents: _r, watchEvents: _w, appendEvents: _a, cancel: _c, ...legacy } = inner;
    const client = createClient({ model: scriptedModel([]), runs: legacy as RunStore });
    expect(() => client.follow("run_x")).toThrow(StoreUnsupportedError);
    await expect(client.cancel("run_x")).rejects.toMatchObject({
      name: "StoreUnsupportedError",
      member: "cancel",
    });
    const full = createClient({ model: scriptedModel([]), runs: memoryRunStore() });
    await expect(collect(full.follow("no_such_run"))).rejects.toMatchObject({
      code: "run_not_found",
    });
  });

  it("a durable run on a store without appendEvents still runs, recording nothing", async () => {
    const inner = memoryRunStore();
    const { appendEvents: _a, ...legacy } = inner;
    const client = lookupClient(legacy as RunStore);
    const result = await client.run("weather?", { durable: true, runId: "run_l" });
    expect(result.status).toBe("done");
    expect(inner.readEvents("run_l", 0).map((e) => e.type)).toEqual(["started", "done"]);
  });

  it("stops following when its signal aborts", async () => {
    const store = memoryRunStore();
    const entered = gate();
    const release = gate();
    const client = lookupClient(store, { entered: entered.open, release: release.opened });
    const running = client.run("weather?", { durable: true, runId: "run_w" });
    await entered.opened;
    const controller = new AbortController();
    const seen: RecordedRunEvent[] = [];
    const following = (async () => {
      for await (const event of client.follow("run_w", { signal: controller.signal })) {
        seen.push(event);
        if (event.type === "tool_call") controller.abort();
      }
    })();
    await following;
    expect(seen.at(-1)?.type).toBe("tool_call");
    release.open();
    await running;
  });

  it("follows by polling a store that cannot wake it (no watchEvents)", async () => {
    const inner = memoryRunStore();
    const { watchEvents: _w, ...noWatch } = inner;
    const entered = gate();
    const release = gate();
    const client = lookupClient(noWatch as RunStore, {
      entered: entered.open,
      release: release.opened,
    });
    const running = client.run("weather?", { durable: true, runId: "run_p" });
    await entered.opened;
    const following = collect(client.follow("run_p", { pollMs: 10 }));
    release.open();
    await running;
    const seen = await following;
    expect(seen.at(-1)?.type).toBe("done");
    expect(seen.map((e) => e.offset)).toEqual(seen.map((_, i) => i + 1));
  });

  it("costs at most one extra write per durable write, and records in batches", async () => {
    const inner = memoryRunStore();
    const writes = { appendEvents: 0, durable: 0 };
    const counted: RunStore = {
      ...inner,
      step: (lease, checkpoint) => {
        writes.durable++;
        return inner.step(lease, checkpoint);
      },
      journal: (lease, entry) => {
        writes.durable++;
        return inner.journal(lease, entry);
      },
      finish: (lease, outcome) => {
        writes.durable++;
        return inner.finish(lease, outcome);
      },
      appendEvents: (lease, events) => {
        writes.appendEvents++;
        return inner.appendEvents(lease, events);
      },
    };
    const client = lookupClient(counted);
    await client.run("weather?", { durable: true, runId: "run_b" });
    expect(writes.durable).toBeGreaterThan(0);
    expect(writes.appendEvents).toBeLessThanOrEqual(writes.durable);
    expect(inner.readEvents("run_b", 0).length).toBeGreaterThan(writes.appendEvents);
  });

  it("reads a long history in pages: 2,500 events, each once, in order", async () => {
    const store = memoryRunStore();
    const lease = store.start(sampleCheckpoint({ runId: "run_long" }), "w1", 60_000);
    for (let batch = 0; batch < 5; batch++) {
      store.appendEvents(
        lease,
        Array.from({ length: 500 }, (_, i) => ({
          type: "progress" as const,
          data: { callId: "c", progress: batch * 500 + i },
        })),
      );
    }
    store.release(lease);
    const client = createClient({ model: scriptedModel([]), runs: store });
    const controller = new AbortController();
    const seen: RecordedRunEvent[] = [];
    for await (const event of client.follow("run_long", { signal: controller.signal })) {
      seen.push(event);
      if (seen.length === 2_501) controller.abort();
    }
    expect(seen.map((e) => e.offset)).toEqual(Array.from({ length: 2_501 }, (_, i) => i + 1));
  });

  it("ends at a run that ended without a terminal event (recorded before stores kept events)", async () => {
    const inner = memoryRunStore();
    const client = lookupClient(inner);
    await client.run("weather?", { durable: true, runId: "run_old" });
    // A store that lost the run's last event: the follower stops at the state, not never.
    const old: RunStore = {
      ...inner,
      readEvents: (runId, after, limit) =>
        inner.readEvents(runId, after, limit).filter((e) => e.type !== "done"),
    };
    const seen = await collect(
      createClient({ model: scriptedModel([]), runs: old }).follow("run_old", { pollMs: 10 }),
    );
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.some((e) => e.type === "done")).toBe(false);
  });
});
