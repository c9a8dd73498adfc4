// The part of the RunStore contract for questions that wait too long: the reminders and
// escalations a halt stores with its requests, each handed out once by `claimDue` (to one
// caller, across restarts), never for a request that no longer waits. Run by `runStoreContract`.
import { expect, it } from "vitest";
import type { Checkpoint } from "../checkpoint.js";
import type { Lease, RunStore } from "../stores.js";
import type { DueTimer, RequestTimer } from "../waiting.js";
import { LONG_MS, sampleCheckpoint } from "./samples.js";

const HOUR = 3_600_000;

/** A checkpoint halted on `ids`, each with reminders at +1 h and +2 h and an escalation at +3 h. */
function withTimers(runId: string, ids: string[], base: number): Checkpoint {
  const checkpoint = sampleCheckpoint({ runId, pending: ids, sessionId: "s1" });
  const timers: RequestTimer[] = [
    { kind: "reminder", at: new Date(base + HOUR).toISOString() },
    { kind: "reminder", at: new Date(base + 2 * HOUR).toISOString() },
    { kind: "escalation", at: new Date(base + 3 * HOUR).toISOString(), to: "leads" },
  ];
  for (const call of checkpoint.pending) call.timers = timers.map((t) => ({ ...t }));
  return checkpoint;
}

/** The due-timer contract's cases; call inside a `describe` of the store's contract suite. */
export function dueContract(current: () => RunStore): void {
  const store = current;
  const claimDue = async (now: number, owner = "w1", limit?: number): Promise<DueTimer[]> =>
    (await store().claimDue!({ now, owner, ...(limit === undefined ? {} : { limit }) })) ?? [];
  const keys = (due: DueTimer[]) => due.map((d) => `${d.requestId}#${d.index}:${d.kind}`).sort();

  it("hands out each due timer once, with its request, and nothing before it is due", async () => {
    const base = Date.now();
    await store().halt(withTimers("run_due", ["q1"], base));
    expect(await claimDue(base + HOUR - 1)).toEqual([]);
    const first = await claimDue(base + HOUR);
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({
      runId: "run_due",
      requestId: "q1",
      index: 0,
      kind: "reminder",
      at: new Date(base + HOUR).toISOString(),
      sessionId: "s1",
      request: { id: "q1", kind: "input" },
    });
    expect(await claimDue(base + HOUR, "w2")).toEqual([]);
    const rest = await claimDue(base + 5 * HOUR, "w2");
    expect(keys(rest)).toEqual(["q1#1:reminder", "q1#2:escalation"]);
    expect(await claimDue(base + 9 * HOUR, "w3")).toEqual([]);
  });

  it("an escalation re-addresses its request (data.to) in the same write", async () => {
    const base = Date.now();
    await store().halt(withTimers("run_esc", ["q1"], base));
    const due = await claimDue(base + 3 * HOUR);
    const escalation = due.find((d) => d.kind === "escalation");
    expect(escalation).toMatchObject({ to: "leads", request: { id: "q1", data: { to: "leads" } } });
    expect((await store().getRequest("q1"))?.request.data?.to).toBe("leads");
    expect((await store().getRun("run_esc"))?.requests[0]?.request.data?.to).toBe("leads");
  });

  it("never fires for an answered, expired or cancelled request", async () => {
    const base = Date.now();
    await store().halt(withTimers("run_answered", ["a1"], base));
    await store().answer({ id: "a1", ok: true });
    const expired = withTimers("run_expired", ["e1"], base);
    expired.pending[0]!.deadline = new Date(base - 1).toISOString();
    await store().halt(expired);
    await store().halt(withTimers("run_cancelled", ["c1"], base));
    if (store().cancel !== undefined) await store().cancel!("run_cancelled", { by: "ops" });
    const due = await claimDue(base + 9 * HOUR);
    const ids = new Set(due.map((d) => d.requestId));
    expect(ids.has("a1")).toBe(false);
    expect(ids.has("e1")).toBe(false);
    if (store().cancel !== undefined) expect(ids.has("c1")).toBe(false);
  });

  it("a later halt on the same request keeps what fired: nothing fires twice", async () => {
    const base = Date.now();
    await store().halt(withTimers("run_again", ["q1", "q2"], base));
    expect(keys(await claimDue(base + HOUR))).toEqual(["q1#0:reminder", "q2#0:reminder"]);
    // q2 answered; the run continues and halts again on q1 (its timers as before) and a new q3.
    await store().answer({ id: "q2", ok: true });
    const claimed = await store().claim({ owner: "w", leaseMs: LONG_MS, runId: "run_again" });
    expect(claimed).toBeDefined();
    const again = withTimers("run_again", ["q1", "q3"], base);
    delete again.pending[1]!.timers;
    await store().halt(again, claimed!.lease as Lease);
    expect(keys(await claimDue(base + 2 * HOUR))).toEqual(["q1#1:reminder"]);
    // Escalated, then halted on again: the request stays re-addressed.
    expect(keys(await claimDue(base + 3 * HOUR))).toEqual(["q1#2:escalation"]);
    await store().answer({ id: "q3", ok: true });
    const next = await store().claim({ owner: "w", leaseMs: LONG_MS, runId: "run_again" });
    expect(next).toBeDefined();
    await store().halt(withTimers("run_again", ["q1"], base), next!.lease as Lease);
    expect((await store().getRequest("q1"))?.request.data?.to).toBe("leads");
    expect(await claimDue(base + 9 * HOUR)).toEqual([]);
  });

  it("callers at the same moment share the due timers without duplicates; limit caps one call", async () => {
    const base = Date.now();
    const ids = Array.from({ length: 6 }, (_, i) => `r${i}`);
    await store().halt(withTimers("run_race", ids, base));
    expect(await claimDue(base + 9 * HOUR, "w0", 4)).toHaveLength(4);
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => claimDue(base + 9 * HOUR, `w${i + 1}`)),
    );
    const all = results.flat();
    expect(all).toHaveLength(6 * 3 - 4);
    expect(new Set(keys(all)).size).toBe(all.length);
  });

  it("refuses bad options with a TypeError", async () => {
    await expect(async () => store().claimDue!({ now: Number.NaN, owner: "w" })).rejects.toThrow(
      TypeError,
    );
    await expect(async () => store().claimDue!({ now: 1, owner: "" })).rejects.toThrow(TypeError);
    await expect(async () => store().claimDue!({ now: 1, owner: "w", limit: 0 })).rejects.toThrow(
      TypeError,
    );
  });
}
