import { toolStepKey } from "@toolnexus/core";
import { sampleCheckpoint, sampleJournalEntry } from "@toolnexus/core/testing";
import { describe, expect, it } from "vitest";
import type { Settled } from "./call-outcome.js";
import { Journal } from "./journal.js";
import { LeaseDurability } from "./lease-durability.js";
import { memoryRunStore } from "./memory-stores.js";

/** A run started in a fresh memory store, and a Journal under its lease. */
async function leased(runId: string) {
  const store = memoryRunStore();
  const lease = await store.start(sampleCheckpoint({ runId }), "w1", 60_000);
  const journal = new Journal(store, lease, 60_000, 0, () => []);
  return { store, journal };
}

const step = (callId: string, requestId?: string) => ({
  key: toolStepKey(callId, requestId),
  kind: "tool" as const,
  callId,
  ...(requestId === undefined ? {} : { requestId }),
});

describe("LeaseDurability (a run store as the loop's durability backend)", () => {
  it("journals a tool step under the lease, with the attempt the claims count", async () => {
    const { store, journal } = await leased("lease-1");
    const durability = new LeaseDurability(journal, [], (id) => (id === "c1" ? 3 : 1), undefined);
    const entry = sampleJournalEntry("c1");
    const seen: number[] = [];
    const got = await durability.step(step("c1"), async (attempt) => {
      seen.push(attempt);
      return { message: entry.message, record: entry.record } satisfies Settled;
    });
    journal.stop();
    expect(seen).toEqual([3]);
    expect(got.message.content).toBe("result of c1");
    const claimed = await store.claim({ owner: "w2", leaseMs: 1, runId: "lease-1" });
    // Not claimable while w1 holds it; the journal is read back once the lease is given up.
    expect(claimed).toBeUndefined();
    await store.release(journal.lease);
    const again = await store.claim({ owner: "w2", leaseMs: 60_000, runId: "lease-1" });
    expect(again?.journal.map((e) => e.callId)).toEqual(["c1"]);
  });

  it("replays a step the claim found journaled without running it; the answered one by its key", async () => {
    const { journal } = await leased("lease-2");
    const journaled = [sampleJournalEntry("c1"), sampleJournalEntry("c2", { answered: "r2" })];
    const durability = new LeaseDurability(journal, journaled, () => 1, undefined);
    let ran = 0;
    const work = async () => {
      ran++;
      return { message: journaled[0]!.message } as Settled;
    };
    expect((await durability.step(step("c1"), work)).record?.id).toBe("c1");
    expect((await durability.step(step("c2", "r2"), work)).record?.id).toBe("c2");
    expect(ran).toBe(0);
    // c2's first execution was not journaled: it runs.
    await durability.step(step("c2"), work);
    journal.stop();
    expect(ran).toBe(1);
  });

  it("refuses to record a step once another worker took the run over (fencing)", async () => {
    const { store, journal } = await leased("lease-3");
    journal.stop();
    // The lease lapses and another worker claims the run.
    await store.release(journal.lease);
    await store.claim({ owner: "w2", leaseMs: 60_000, runId: "lease-3" });
    const durability = new LeaseDurability(journal, [], () => 1, undefined);
    const entry = sampleJournalEntry("c1");
    await expect(
      durability.step(step("c1"), async () => ({ message: entry.message, record: entry.record })),
    ).rejects.toMatchObject({ code: "lease_lost" });
  });

  it("runs an engine's step inside, and a model step without recording it", async () => {
    const { journal } = await leased("lease-4");
    const keys: string[] = [];
    const inner = {
      step: <T>(s: { key: string }, work: (attempt: number) => Promise<T>) => {
        keys.push(s.key);
        return work(7);
      },
      answers: async () => [],
    };
    const durability = new LeaseDurability(journal, [], () => 1, inner);
    const attempts: number[] = [];
    await durability.step({ key: "model/1", kind: "model" }, async (a) => attempts.push(a));
    const entry = sampleJournalEntry("c1");
    await durability.step(step("c1"), async (a) => {
      attempts.push(a);
      return { message: entry.message, record: entry.record };
    });
    journal.stop();
    expect(keys).toEqual(["model/1", "tool/c1"]);
    expect(attempts).toEqual([7, 7]);
  });
});
