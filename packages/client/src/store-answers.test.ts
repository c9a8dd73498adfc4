import type { Checkpoint } from "@toolnexus/core";
import { sampleCheckpoint } from "@toolnexus/core/testing";
import { describe, expect, it } from "vitest";
import { memoryRunStore } from "./memory-stores.js";
import { waitForAnswers } from "./store-answers.js";

/** A run halted on requests r1 and r2 in a fresh memory store. */
async function halted(runId: string, deadline?: string) {
  const store = memoryRunStore();
  const checkpoint: Checkpoint = sampleCheckpoint({ runId, pending: ["r1", "r2"] });
  await store.halt(checkpoint);
  const awaited = checkpoint.pending.map((call) =>
    deadline === undefined ? { request: call.request } : { request: call.request, deadline },
  );
  return { store, awaited };
}

describe("waitForAnswers (a halt's wait on a run store)", () => {
  it("returns an answer recorded before the wait began", async () => {
    const { store, awaited } = await halted("wait-1");
    await store.answer({ id: "r2", ok: true, data: { n: 2 } });
    expect(await waitForAnswers(store, awaited)).toEqual([{ id: "r2", ok: true, data: { n: 2 } }]);
  });

  it("wakes when another caller records an answer while it waits", async () => {
    const { store, awaited } = await halted("wait-2");
    const waiting = waitForAnswers(store, awaited);
    await store.answer({ id: "r1", ok: false, reason: "declined" });
    expect(await waiting).toEqual([{ id: "r1", ok: false, reason: "declined" }]);
  });

  it("answers every request past its deadline expired", async () => {
    const { store, awaited } = await halted("wait-3", new Date(0).toISOString());
    expect(await waitForAnswers(store, awaited)).toEqual([
      { id: "r1", ok: false, reason: "expired" },
      { id: "r2", ok: false, reason: "expired" },
    ]);
  });

  it("stops waiting when its signal aborts, and refuses an empty list", async () => {
    const { store, awaited } = await halted("wait-4");
    const stop = new AbortController();
    const waiting = waitForAnswers(store, awaited, stop.signal);
    stop.abort(new Error("gone"));
    await expect(waiting).rejects.toThrow("gone");
    await expect(waitForAnswers(store, [])).rejects.toMatchObject({ code: "answers_mismatch" });
  });
});
