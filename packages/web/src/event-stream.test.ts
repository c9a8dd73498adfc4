import type { RunStore } from "@toolnexus/core";
import { sampleResult, sleep } from "@toolnexus/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { WebHandlerOptions } from "./options.js";
import {
  allowOwnSessions,
  auth,
  haltRun,
  identifyByToken,
  newStore,
  postJson,
  readSse,
  SERVERS,
  type Served,
  type SseFrame,
  type User,
} from "./test-kit.js";

/** Moves a halted, answered run on to its end as a worker would: claim, two loop events, done. */
async function finishRun(store: RunStore, runId: string): Promise<void> {
  const claimed = await store.claim({ owner: "worker-1", leaseMs: 60_000, runId });
  if (claimed === undefined) throw new Error(`run ${runId} could not be claimed`);
  await store.appendEvents!(claimed.lease, [
    { type: "turn", data: { turn: 2 } },
    { type: "text", data: { turn: 2, text: "deploying to staging" } },
  ]);
  await store.finish(claimed.lease, { state: "done", result: sampleResult(runId, "deployed") });
}

const offsets = (frames: SseFrame[]) => frames.map((frame) => Number(frame.id));

describe.each(SERVERS)("run events as SSE (%s)", (_name, serveWith) => {
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  async function setUp(extra: Partial<WebHandlerOptions<User>> = {}) {
    const store = extra.store ?? newStore();
    await haltRun(store, { runId: "run_s", sessionId: "S", requests: ["req_s"] });
    served = await serveWith({
      store,
      identify: identifyByToken,
      allow: allowOwnSessions,
      pollMs: 50,
      ...extra,
    });
    return { store, served };
  }

  const follow = (path: string, headers: Record<string, string> = {}, signal?: AbortSignal) =>
    fetch(`${served!.base}${path}`, {
      headers: { ...auth("token-alice"), ...headers },
      ...(signal ? { signal } : {}),
    });

  it("streams a finished run's events in order (id = offset, event = type, data = JSON) and ends after the terminal one", async () => {
    const { store } = await setUp();
    await store.answer({ id: "req_s", ok: true }, { by: "alice" });
    await finishRun(store, "run_s");
    const response = await follow("/runs/run_s/events");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const { frames, ended } = await readSse(response);
    expect(ended).toBe(true);
    const recorded = await store.readEvents!("run_s", 0);
    expect(offsets(frames)).toEqual(recorded.map((event) => event.offset));
    expect(frames.map((frame) => frame.event)).toEqual(recorded.map((event) => event.type));
    expect(frames.at(-1)?.event).toBe("done");
    const answered = frames.find((frame) => frame.event === "answered")!;
    expect(JSON.parse(answered.data!).data).toMatchObject({
      requestId: "req_s",
      ok: true,
      by: "alice",
    });
  });

  it("a follower sees live events, reconnects with Last-Event-ID, and gets each event exactly once", async () => {
    const { store } = await setUp();
    // First connection: wait for the halt, answer over HTTP, see the answer arrive live, drop.
    let answering: Promise<Response> | undefined;
    const first = await readSse(await follow("/runs/run_s/events"), (frames) => {
      if (answering === undefined && frames.some((frame) => frame.event === "suspended")) {
        answering = postJson(served!, "/requests/req_s/answer", { ok: true }, auth("token-alice"));
      }
      return frames.some((frame) => frame.event === "answered");
    });
    expect((await answering!).status).toBe(200);
    expect(first.ended).toBe(false);
    const answered = first.frames.find((frame) => frame.event === "answered")!;
    expect(JSON.parse(answered.data!).data.by).toBe("alice");

    // While nobody follows, the run goes on to its end.
    await finishRun(store, "run_s");
    const lastSeen = first.frames.at(-1)!.id!;
    const second = await readSse(await follow("/runs/run_s/events", { "last-event-id": lastSeen }));
    expect(second.ended).toBe(true);

    const all = await store.readEvents!("run_s", 0);
    const seen = [...offsets(first.frames), ...offsets(second.frames)];
    expect(seen).toEqual(all.map((event) => event.offset));
    expect(new Set(seen).size).toBe(seen.length);
    expect(second.frames.at(-1)?.event).toBe("done");
  });

  it("?after= resumes the same way; Last-Event-ID wins over it; a bad offset is 400", async () => {
    const { store } = await setUp();
    await store.answer({ id: "req_s", ok: true }, { by: "alice" });
    await finishRun(store, "run_s");
    const all = await store.readEvents!("run_s", 0);
    const fromTwo = await readSse(await follow("/runs/run_s/events?after=2"));
    expect(offsets(fromTwo.frames)).toEqual(all.filter((e) => e.offset > 2).map((e) => e.offset));
    const header = await readSse(
      await follow("/runs/run_s/events?after=1", { "last-event-id": "3" }),
    );
    expect(offsets(header.frames)[0]).toBe(4);
    const bad = await follow("/runs/run_s/events", { "last-event-id": "-1" });
    expect(bad.status).toBe(400);
    expect((await follow("/runs/run_s/events?after=abc")).status).toBe(400);
  });

  it("a cancel over HTTP reaches the follower as the terminal cancelled event, with who cancelled", async () => {
    await setUp();
    let cancelling: Promise<Response> | undefined;
    const { frames, ended } = await readSse(await follow("/runs/run_s/events"), (seen) => {
      if (cancelling === undefined && seen.some((frame) => frame.event === "suspended")) {
        cancelling = postJson(
          served!,
          "/runs/run_s/cancel",
          { reason: "not needed" },
          auth("token-alice"),
        );
      }
      return false; // read to the stream's own end
    });
    expect(ended).toBe(true);
    expect((await cancelling!).status).toBe(200);
    const last = frames.at(-1)!;
    expect(last.event).toBe("cancelled");
    expect(JSON.parse(last.data!).data).toMatchObject({ by: "alice", reason: "not needed" });
  });

  it("sends heartbeat comments on an idle stream", async () => {
    await setUp({ heartbeatMs: 20 });
    const { comments } = await readSse(await follow("/runs/run_s/events"), (_frames, seen) =>
      seen.includes("heartbeat"),
    );
    expect(comments).toContain("heartbeat");
  });

  it("stops following (unwatches the store) when the client disconnects", async () => {
    const store = newStore();
    let watching = 0;
    const counted: RunStore = Object.assign(Object.create(store) as RunStore, {
      watchEvents(runId: string, onEvent: () => void) {
        watching += 1;
        const unwatch = store.watchEvents!(runId, onEvent);
        return () => {
          watching -= 1;
          unwatch();
        };
      },
    });
    await setUp({ store: counted });
    const controller = new AbortController();
    const response = await follow("/runs/run_s/events", {}, controller.signal);
    const reader = response.body!.getReader();
    await reader.read(); // connected
    while (watching === 0) await sleep(10);
    controller.abort();
    // Each pass waits for the server to notice; the test's timeout bounds it.
    while (watching > 0) await sleep(20);
    expect(watching).toBe(0);
  });

  it("is 501 over a store that records no events", async () => {
    const store = newStore();
    const plain = Object.assign(Object.create(store) as RunStore, { readEvents: undefined });
    await setUp({ store: plain });
    const response = await follow("/runs/run_s/events");
    expect(response.status).toBe(501);
    expect((await response.json()).error.code).toBe("not_implemented");
  });
});
