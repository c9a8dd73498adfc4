import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_DURABLE_ANSWER_CHARS } from "../durability.js";
import type { Message } from "../messages.js";
import { MAX_STORE_ID_CHARS } from "../store-kit.js";
import type { Awaitable, ClaimedRun, RequestInfo, RunStore } from "../stores.js";
import type { Answer } from "../wire.js";
import { dueContract } from "./due-contract.js";
import { eventsContract } from "./events-contract.js";
import { idContract } from "./id-contract.js";
import { operationsContract } from "./operations-contract.js";
import {
  failure,
  isoIn,
  LAPSE_MS,
  LONG_MS,
  type SampleCheckpointOptions,
  SHORT_MS,
  sampleCheckpoint,
  sampleError,
  sampleJournalEntry,
  sampleResult,
  sleep,
} from "./samples.js";

export {
  isoIn,
  type SampleCheckpointOptions,
  type SamplePending,
  sampleCheckpoint,
  sampleError,
  sampleJournalEntry,
  sampleResult,
  sleep,
} from "./samples.js";

/** What the suite's `open` returns: an empty store, and how to dispose of it after the test. */
export interface OpenedStore {
  store: RunStore;
  close?: () => Awaitable<void>;
}

// Errors are matched by name and code, not instanceof: a store may load another copy of
// @toolnexus/core (CommonJS next to ESM) whose classes are different objects.
const notFound = { name: "SuspensionNotFoundError", code: "suspension_not_found" };
const conflict = (reason: "answered" | "expired") => ({
  name: "AnswerConflictError",
  code: "answer_conflict",
  reason,
});
const leaseLost = { name: "LeaseLostError", code: "lease_lost" };
const checkpointInvalid = { name: "CheckpointError", code: "checkpoint_invalid" };
const runExists = { code: "run_exists" };

/**
 * The behaviour every {@link RunStore} must have, as a vitest suite: call it from a test file of
 * your store with a function that opens an empty store (a fresh one per test).
 *
 * The suite uses short leases and deadlines and really waits for them to run out, so it takes
 * a few seconds. A store may be synchronous or return promises.
 *
 * @example
 * ```ts
 * import { runStoreContract } from "@toolnexus/core/testing";
 * runStoreContract("my store", async () => {
 *   const store = await openMyStore({ url: freshDatabase() });
 *   return { store, close: () => store.close() };
 * });
 * ```
 */
export function runStoreContract(name: string, open: () => Awaitable<OpenedStore>): void {
  describe(`RunStore contract: ${name}`, () => {
    let store: RunStore;
    let close: (() => Awaitable<void>) | undefined;

    beforeEach(async () => {
      const opened = await open();
      store = opened.store;
      close = opened.close;
    });
    afterEach(async () => {
      await close?.();
    });

    /** Halts a new run waiting for `pending`. */
    const halt = async (options: SampleCheckpointOptions) => {
      const checkpoint = sampleCheckpoint(options);
      expect(await store.halt(checkpoint)).toEqual({ state: "waiting" });
      return checkpoint;
    };
    /** Claims `runId` by id; the run must be claimable. */
    const claim = async (runId: string, owner = "w1", leaseMs = LONG_MS): Promise<ClaimedRun> => {
      const claimed = await store.claim({ owner, leaseMs, runId });
      expect(claimed, `run ${runId} should be claimable`).toBeDefined();
      return claimed!;
    };
    const stateOf = async (runId: string) => (await store.getRun(runId))?.state;
    const requestState = async (id: string) => (await store.getRequest(id))?.state;

    describe("halt", () => {
      it("stores a new run waiting, with each pending request waiting", async () => {
        const checkpoint = await halt({
          runId: "run_1",
          sessionId: "s1",
          agent: "helper",
          pending: ["r1", { id: "r2", kind: "approval", prompt: "May I?" }],
        });
        const run = await store.getRun("run_1");
        expect(run).toMatchObject({
          runId: "run_1",
          state: "waiting",
          sessionId: "s1",
          agent: "helper",
          createdAt: checkpoint.createdAt,
          failures: 0,
          checkpoint,
        });
        expect(Number.isNaN(Date.parse(run!.updatedAt))).toBe(false);
        expect(run!.owner).toBeUndefined();
        expect(run!.result).toBeUndefined();
        expect(run!.lastError).toBeUndefined();
        expect(run!.requests).toEqual([
          { request: checkpoint.pending[0]!.request, runId: "run_1", state: "waiting" },
          { request: checkpoint.pending[1]!.request, runId: "run_1", state: "waiting" },
        ]);
        expect(await store.getRequest("r2")).toEqual({
          request: { id: "r2", kind: "approval", prompt: "May I?" },
          runId: "run_1",
          state: "waiting",
        });
        // Nothing to continue until an answer arrives or a deadline passes.
        expect(await store.claim({ owner: "w1", leaseMs: LONG_MS })).toBeUndefined();
        expect(await store.claim({ owner: "w1", leaseMs: LONG_MS, runId: "run_1" })).toBe(
          undefined,
        );
      });

      it("refuses an invalid checkpoint and stores nothing", async () => {
        const v1 = { ...sampleCheckpoint({ pending: ["r1"] }), version: 1, id: "ckp_1" };
        expect(await failure(() => store.halt(v1 as never))).toMatchObject(checkpointInvalid);
        const badSlot = sampleCheckpoint({ pending: ["r1"] });
        badSlot.pending[0]!.slot = 999;
        expect(await failure(() => store.halt(badSlot))).toMatchObject(checkpointInvalid);
        const nullMessage = sampleCheckpoint({ pending: ["r1"] });
        (nullMessage.messages as unknown[])[0] = null;
        expect(await failure(() => store.halt(nullMessage))).toMatchObject(checkpointInvalid);
        expect(await store.getRun("run_1")).toBeUndefined();
        expect(await store.getRequest("r1")).toBeUndefined();
        expect(await store.list()).toEqual([]);
      });

      it("refuses a run it already has without a lease (run_exists), changing nothing", async () => {
        await halt({ runId: "run_1", pending: ["r1"] });
        const again = sampleCheckpoint({ runId: "run_1", pending: ["r9"], turns: 7 });
        expect(await failure(() => store.halt(again))).toMatchObject(runExists);
        const run = await store.getRun("run_1");
        expect(run?.checkpoint?.turns).toBe(1);
        expect(run?.requests.map((r) => r.request.id)).toEqual(["r1"]);
        expect(await store.getRequest("r9")).toBeUndefined();
        await store.start(sampleCheckpoint({ runId: "run_2" }), "w1", LONG_MS);
        expect(
          await failure(() => store.halt(sampleCheckpoint({ runId: "run_2", pending: ["r2"] }))),
        ).toMatchObject(runExists);
        expect(await stateOf("run_2")).toBe("running");
      });

      it("uses the pending call's deadline before the request's own expiresAt", async () => {
        const soon = isoIn(LONG_MS);
        const later = isoIn(2 * LONG_MS);
        await halt({
          pending: [
            { id: "r1", expiresAt: later, deadline: soon },
            { id: "r2", expiresAt: later },
          ],
        });
        expect((await store.getRequest("r1"))?.expiresAt).toBe(soon);
        expect((await store.getRequest("r2"))?.expiresAt).toBe(later);
        expect((await store.getRequest("r1"))?.request.expiresAt).toBe(later);
        const [first] = await store.list({ runId: "run_1" });
        expect(first?.expiresAt).toBe(soon);
      });

      it("with a lease: fenced, the lease released, known requests keep their state", async () => {
        await halt({ pending: ["r1", "r2"] });
        await store.answer({ id: "r1", ok: true });
        const claimed = await claim("run_1");
        // The run moved on: r1 was applied by this step, r2 is asked again, r3 is new.
        await store.journal(claimed.lease, sampleJournalEntry("call_1", { answered: "r1" }));
        const next = sampleCheckpoint({ pending: ["r2", "r3"], turns: 2 });
        expect(await store.halt(next, claimed.lease)).toEqual({ state: "waiting" });
        const run = await store.getRun("run_1");
        expect(run).toMatchObject({ state: "waiting", checkpoint: next });
        expect(run!.owner).toBeUndefined();
        expect(run!.leaseExpiresAt).toBeUndefined();
        expect(run!.requests.map((r) => [r.request.id, r.state])).toEqual([
          ["r2", "waiting"],
          ["r3", "waiting"],
        ]);
        expect(await store.getRequest("r1")).toMatchObject({
          state: "applied",
          answer: { ok: true },
        });
        // The lease is gone: every write with it is refused, halting again too.
        expect(await failure(() => store.step(claimed.lease, next))).toMatchObject(leaseLost);
        expect(await failure(() => store.halt(next, claimed.lease))).toMatchObject(leaseLost);
        // Requests this halt does not list are applied, answered or not.
        await store.answer({ id: "r2", ok: true });
        const again = await claim("run_1");
        expect(await store.halt(sampleCheckpoint({ pending: ["r4"] }), again.lease)).toEqual({
          state: "waiting",
        });
        expect(await requestState("r2")).toBe("applied");
        expect(await requestState("r3")).toBe("applied");
        expect(await requestState("r4")).toBe("waiting");
      });

      it("clears the journal", async () => {
        await halt({ pending: ["r1"] });
        await store.answer({ id: "r1", ok: true });
        const first = await claim("run_1");
        await store.journal(first.lease, sampleJournalEntry("call_1", { answered: "r1" }));
        await store.halt(sampleCheckpoint({ pending: ["r2"] }), first.lease);
        await store.answer({ id: "r2", ok: true });
        expect((await claim("run_1")).journal).toEqual([]);
      });

      it("keeps data as copies: changing what was passed in or handed out changes nothing", async () => {
        const checkpoint = sampleCheckpoint({ pending: ["r1"] });
        const halting = store.halt(checkpoint);
        // Changed before the (possibly asynchronous) call completes.
        checkpoint.turns = 99;
        checkpoint.pending[0]!.request.prompt = "changed";
        checkpoint.messages.push({ role: "user", content: "changed" });
        await halting;
        const answer: Answer = { id: "r1", ok: true, data: { env: "staging" } };
        const answering = store.answer(answer);
        answer.data!.env = "prod";
        await answering;

        const run = (await store.getRun("run_1"))!;
        expect(run.checkpoint?.turns).toBe(1);
        expect(run.checkpoint?.messages).toHaveLength(3);
        expect(run.requests[0]?.request.prompt).toBe("question 1");
        expect(run.requests[0]?.answer?.data).toEqual({ env: "staging" });
        run.checkpoint!.turns = 42;
        run.requests[0]!.request.prompt = "mutated";
        run.requests[0]!.answer!.data!.env = "mutated";
        const summaries = await store.list();
        summaries[0]!.request.prompt = "mutated";
        const request = (await store.getRequest("r1"))!;
        request.answer!.ok = false;
        const reread = (await store.getRun("run_1"))!;
        expect(reread.checkpoint?.turns).toBe(1);
        expect(reread.requests[0]?.request.prompt).toBe("question 1");
        expect(reread.requests[0]?.answer).toEqual({
          id: "r1",
          ok: true,
          data: { env: "staging" },
        });
        expect((await store.getRequest("r1"))?.answer?.ok).toBe(true);

        const claimed = await claim("run_1");
        expect(claimed.checkpoint.turns).toBe(1);
        expect(claimed.checkpoint.pending[0]?.request.prompt).toBe("question 1");
        expect(claimed.answers).toEqual([{ id: "r1", ok: true, data: { env: "staging" } }]);
        expect((await store.list())[0]?.request.prompt).toBe("question 1");

        const entry = sampleJournalEntry("call_1", { output: "first" });
        const journaling = store.journal(claimed.lease, entry);
        entry.message.content = "changed";
        await journaling;
        claimed.checkpoint.turns = 50;
        claimed.answers[0]!.ok = false;
        await store.release(claimed.lease);
        const again = await claim("run_1");
        expect(again.checkpoint.turns).toBe(1);
        expect(again.answers[0]?.ok).toBe(true);
        expect(again.journal[0]?.message.content).toBe("first");
        again.journal[0]!.message.content = "mutated";
        await store.release(again.lease);
        expect((await claim("run_1")).journal[0]?.message.content).toBe("first");
      });
    });

    describe("start", () => {
      it("creates a run running under a lease with token 1", async () => {
        const checkpoint = sampleCheckpoint({ runId: "run_1", sessionId: "s1" });
        const before = Date.now();
        const lease = await store.start(checkpoint, "w1", LONG_MS);
        expect(lease).toMatchObject({ runId: "run_1", owner: "w1", token: 1 });
        expect(lease.expiresAt).toBeGreaterThanOrEqual(before + LONG_MS);
        expect(lease.expiresAt).toBeLessThanOrEqual(Date.now() + LONG_MS);
        const run = await store.getRun("run_1");
        expect(run).toMatchObject({
          state: "running",
          owner: "w1",
          sessionId: "s1",
          checkpoint,
          requests: [],
          failures: 0,
        });
        expect(Date.parse(run!.leaseExpiresAt!)).toBe(lease.expiresAt);
        // A live lease: nobody else can take the run.
        expect(await store.claim({ owner: "w2", leaseMs: LONG_MS })).toBeUndefined();
        expect(await store.claim({ owner: "w2", leaseMs: LONG_MS, runId: "run_1" })).toBe(
          undefined,
        );
        expect(await failure(() => store.start(checkpoint, "w2", LONG_MS))).toMatchObject(
          runExists,
        );
        expect((await store.getRun("run_1"))?.owner).toBe("w1");
      });

      it("refuses an invalid checkpoint", async () => {
        const bad = { ...sampleCheckpoint(), version: 1 };
        expect(await failure(() => store.start(bad as never, "w1", LONG_MS))).toMatchObject(
          checkpointInvalid,
        );
        expect(await store.getRun("run_1")).toBeUndefined();
      });
    });

    describe("answer", () => {
      it("validates the answer before anything else", async () => {
        await halt({ pending: ["r1"] });
        for (const bad of [
          { id: "r1", ok: "yes" },
          { id: "", ok: true },
          { ok: true },
          { id: "r1", ok: true, reason: "declined" },
          { id: "r1", ok: false, reason: "bored" },
          { id: "r1", ok: true, data: [1] },
          { id: "nobody", ok: "yes" },
          null,
        ]) {
          expect(await failure(() => store.answer(bad as never))).toMatchObject({
            name: "WireFormatError",
            code: "wire_format",
          });
        }
        expect(await requestState("r1")).toBe("waiting");
        expect(await stateOf("run_1")).toBe("waiting");
      });

      it("refuses an answer too large to keep (answer_too_large) and records nothing", async () => {
        await halt({ pending: ["r1"] });
        const big = { id: "r1", ok: true, data: { blob: "x".repeat(MAX_DURABLE_ANSWER_CHARS) } };
        const error = await failure(() => store.answer(big));
        expect(error).toMatchObject({ name: "ToolnexusError", code: "answer_too_large" });
        expect(String(error.message)).toContain(String(MAX_DURABLE_ANSWER_CHARS));
        // Nothing was written: the request still waits, unanswered, and so does the run.
        const info = await store.getRequest("r1");
        expect(info?.state).toBe("waiting");
        expect(info?.answer).toBeUndefined();
        expect(await stateOf("run_1")).toBe("waiting");
        // Refused whether or not the request exists; an answer at the cap is kept whole.
        expect(await failure(() => store.answer({ ...big, id: "nobody" }))).toMatchObject({
          code: "answer_too_large",
        });
        const overhead = JSON.stringify({ id: "r1", ok: true, data: { blob: "" } }).length;
        const atCap = {
          id: "r1",
          ok: true,
          data: { blob: "y".repeat(MAX_DURABLE_ANSWER_CHARS - overhead) },
        };
        expect(JSON.stringify(atCap)).toHaveLength(MAX_DURABLE_ANSWER_CHARS);
        expect(await store.answer(atCap)).toMatchObject({ requestId: "r1", duplicate: false });
        expect((await store.getRequest("r1"))?.answer).toEqual(atCap);
      });

      it("refuses an unknown request id", async () => {
        await halt({ pending: ["r1"] });
        const error = await failure(() => store.answer({ id: "r2", ok: true }));
        expect(error).toMatchObject({ ...notFound, requestId: "r2" });
        expect(await stateOf("run_1")).toBe("waiting");
      });

      it("records it: the request answered, the run ready, subscribers told", async () => {
        await halt({ pending: ["r1", "r2"] });
        const receipt = await store.answer({ id: "r1", ok: false, reason: "declined" });
        expect(receipt).toEqual({
          runId: "run_1",
          requestId: "r1",
          duplicate: false,
          state: "ready",
        });
        expect(await store.getRequest("r1")).toMatchObject({
          state: "answered",
          answer: { id: "r1", ok: false, reason: "declined" },
        });
        expect(await requestState("r2")).toBe("waiting");
        expect(await stateOf("run_1")).toBe("ready");
        expect((await store.list({ state: "answered" })).map((s) => s.request.id)).toEqual(["r1"]);
      });

      it("stores the validated answer: unknown keys and null optionals dropped", async () => {
        await halt({ pending: ["r1"] });
        await store.answer({ id: "r1", ok: true, data: null, reason: null, extra: 1 } as never);
        expect((await store.getRequest("r1"))?.answer).toEqual({ id: "r1", ok: true });
        // The same answer in another spelling is the same answer.
        expect((await store.answer({ id: "r1", ok: true })).duplicate).toBe(true);
      });

      it("is idempotent: the same answer again is a duplicate, another one a conflict", async () => {
        await halt({ pending: ["r1"] });
        const answer = { id: "r1", ok: true, data: { env: "staging", opts: { a: 1, b: [1, 2] } } };
        expect((await store.answer(answer)).duplicate).toBe(false);
        // Key order does not make an answer different.
        const reordered = {
          data: { opts: { b: [1, 2], a: 1 }, env: "staging" },
          ok: true,
          id: "r1",
        };
        expect(await store.answer(reordered)).toEqual({
          runId: "run_1",
          requestId: "r1",
          duplicate: true,
          state: "ready",
        });
        const other = await failure(() =>
          store.answer({ id: "r1", ok: true, data: { env: "prod" } }),
        );
        expect(other).toMatchObject({ ...conflict("answered"), requestId: "r1" });
        expect(await failure(() => store.answer({ id: "r1", ok: false }))).toMatchObject(
          conflict("answered"),
        );
        expect((await store.getRequest("r1"))?.answer).toEqual(answer);
        // Still the same once the run has applied it.
        const claimed = await claim("run_1");
        await store.journal(claimed.lease, sampleJournalEntry("call_1", { answered: "r1" }));
        expect(await requestState("r1")).toBe("applied");
        expect(await store.answer(answer)).toEqual({
          runId: "run_1",
          requestId: "r1",
          duplicate: true,
          state: "running",
        });
        expect(await failure(() => store.answer({ id: "r1", ok: false }))).toMatchObject(
          conflict("answered"),
        );
      });

      it("refuses an answer after the deadline, changing nothing", async () => {
        const deadline = isoIn(-1000);
        await halt({ pending: [{ id: "r1", deadline }, "r2"] });
        expect(await stateOf("run_1")).toBe("expired");
        expect(await requestState("r1")).toBe("expired");
        const error = await failure(() => store.answer({ id: "r1", ok: true }));
        expect(error).toMatchObject({ ...conflict("expired"), requestId: "r1" });
        expect(String(error.message)).toContain(new Date(deadline).toISOString());
        expect(await requestState("r1")).toBe("expired");
        expect((await store.getRequest("r1"))?.answer).toBeUndefined();
        // A sibling without a deadline can still be answered.
        expect((await store.answer({ id: "r2", ok: true })).state).toBe("ready");
      });

      it("lets a deadline pass for real", async () => {
        // Long enough that a loaded machine still reads the run before its deadline; the checks
        // before it only run while it is surely ahead.
        const deadline = Date.now() + 1500;
        await halt({ pending: [{ id: "r1", deadline: new Date(deadline).toISOString() }] });
        if (Date.now() < deadline - 500) {
          expect(await stateOf("run_1")).toBe("waiting");
          expect(await store.claim({ owner: "w1", leaseMs: LONG_MS })).toBeUndefined();
        }
        await sleep(Math.max(0, deadline - Date.now()) + 50);
        expect(await stateOf("run_1")).toBe("expired");
        expect(await requestState("r1")).toBe("expired");
        expect(await failure(() => store.answer({ id: "r1", ok: true }))).toMatchObject(
          conflict("expired"),
        );
        const claimed = await store.claim({ owner: "w1", leaseMs: LONG_MS });
        expect(claimed).toMatchObject({ reason: "expired", answers: [], journal: [] });
      });

      it("keeps sibling answers to one halt, and claim returns them in pending order", async () => {
        await halt({ pending: ["r1", "r2", "r3"] });
        expect((await store.answer({ id: "r3", ok: true, data: { n: 3 } })).state).toBe("ready");
        expect(await store.answer({ id: "r1", ok: false, reason: "declined" })).toEqual({
          runId: "run_1",
          requestId: "r1",
          duplicate: false,
          state: "ready",
        });
        const run = await store.getRun("run_1");
        expect(run?.requests.map((r) => [r.request.id, r.state, r.answer?.ok])).toEqual([
          ["r1", "answered", false],
          ["r2", "waiting", undefined],
          ["r3", "answered", true],
        ]);
        const claimed = await store.claim({ owner: "w1", leaseMs: LONG_MS });
        expect(claimed?.reason).toBe("ready");
        expect(claimed?.answers).toEqual([
          { id: "r1", ok: false, reason: "declined" },
          { id: "r3", ok: true, data: { n: 3 } },
        ]);
        // An answer arriving while the run is running is kept for the run's next halt.
        expect(await store.answer({ id: "r2", ok: true })).toMatchObject({
          duplicate: false,
          state: "running",
        });
        expect(await stateOf("run_1")).toBe("running");
        expect(await requestState("r2")).toBe("answered");
      });

      it("an answer recorded while running makes the next halt ready", async () => {
        await halt({ pending: ["r1", "r2"] });
        await store.answer({ id: "r1", ok: true });
        const claimed = await claim("run_1");
        await store.journal(claimed.lease, sampleJournalEntry("call_1", { answered: "r1" }));
        await store.answer({ id: "r2", ok: true, data: { late: true } });
        const next = sampleCheckpoint({ pending: ["r2"], turns: 2 });
        expect(await store.halt(next, claimed.lease)).toEqual({ state: "ready" });
        expect(await stateOf("run_1")).toBe("ready");
        expect(await requestState("r1")).toBe("applied");
        expect(await requestState("r2")).toBe("answered");
        const again = await store.claim({ owner: "w2", leaseMs: LONG_MS });
        expect(again).toMatchObject({
          reason: "ready",
          checkpoint: next,
          answers: [{ id: "r2", ok: true, data: { late: true } }],
          journal: [],
        });
        expect(again?.lease.token).toBe(claimed.lease.token + 1);
      });

      it("answers the newest run that raised a request id", async () => {
        await halt({ runId: "run_a", pending: ["r1"] });
        await sleep(5);
        await halt({ runId: "run_b", pending: ["r1"] });
        expect((await store.getRequest("r1"))?.runId).toBe("run_b");
        expect(await store.answer({ id: "r1", ok: true })).toMatchObject({ runId: "run_b" });
        expect(await stateOf("run_b")).toBe("ready");
        expect(await stateOf("run_a")).toBe("waiting");
      });
    });

    describe("claim", () => {
      it("returns undefined when nothing can be claimed", async () => {
        const none = { owner: "w1", leaseMs: LONG_MS };
        expect(await store.claim(none)).toBeUndefined();
        expect(await store.claim({ ...none, runId: "nope" })).toBeUndefined();
        await halt({ pending: ["r1"] });
        expect(await store.claim(none)).toBeUndefined();
        expect(await store.claim({ ...none, runId: "run_1" })).toBeUndefined();
        expect(await stateOf("run_1")).toBe("waiting");
      });

      it("gives a run to exactly one of many concurrent claimers", async () => {
        await halt({ pending: ["r1"] });
        await store.answer({ id: "r1", ok: true });
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            i % 2 === 0
              ? store.claim({ owner: `w${i}`, leaseMs: LONG_MS })
              : store.claim({ owner: `w${i}`, leaseMs: LONG_MS, runId: "run_1" }),
          ),
        );
        const winners = results.filter((r) => r !== undefined);
        expect(winners).toHaveLength(1);
        const lease = winners[0]!.lease;
        expect(lease.runId).toBe("run_1");
        expect(Number.isInteger(lease.token)).toBe(true);
        expect(await store.getRun("run_1")).toMatchObject({ state: "running", owner: lease.owner });
      });

      it("gives each of several runs to exactly one claimer", async () => {
        const ids = ["run_1", "run_2", "run_3", "run_4", "run_5"];
        for (const [i, runId] of ids.entries()) {
          await halt({ runId, pending: [`r${i}`] });
          await store.answer({ id: `r${i}`, ok: true });
        }
        const results = await Promise.all(
          Array.from({ length: 16 }, (_, i) => store.claim({ owner: `w${i}`, leaseMs: LONG_MS })),
        );
        const claimed = results.filter((r) => r !== undefined).map((r) => r.lease.runId);
        expect(claimed.sort()).toEqual(ids);
        expect(await store.claim({ owner: "late", leaseMs: LONG_MS })).toBeUndefined();
      });

      it("claims only the given agent's runs: a string, null for none, any when unset", async () => {
        await halt({ runId: "run_alpha", agent: "alpha", pending: ["ra"] });
        await halt({ runId: "run_beta", agent: "beta", pending: ["rb"] });
        await halt({ runId: "run_none", pending: ["rn"] });
        for (const id of ["ra", "rb", "rn"]) await store.answer({ id, ok: true });
        const beta = await store.claim({ owner: "w", leaseMs: LONG_MS, agent: "beta" });
        expect(beta?.lease.runId).toBe("run_beta");
        expect(await store.claim({ owner: "w", leaseMs: LONG_MS, agent: "beta" })).toBeUndefined();
        expect(await store.claim({ owner: "w", leaseMs: LONG_MS, agent: "gamma" })).toBeUndefined();
        const none = await store.claim({ owner: "w", leaseMs: LONG_MS, agent: null });
        expect(none?.lease.runId).toBe("run_none");
        const any = await store.claim({ owner: "w", leaseMs: LONG_MS });
        expect(any?.lease.runId).toBe("run_alpha");
      });

      it("picks the run that has been claimable longest", async () => {
        for (const runId of ["run_a", "run_b", "run_c"]) {
          await halt({ runId, pending: [`${runId}_r`] });
        }
        await store.answer({ id: "run_b_r", ok: true });
        await sleep(20);
        await store.answer({ id: "run_c_r", ok: true });
        await sleep(20);
        await store.answer({ id: "run_a_r", ok: true });
        // Claimable since its deadline passed, a minute ago: before any of the ready ones.
        await halt({ runId: "run_d", pending: [{ id: "run_d_r", deadline: isoIn(-60_000) }] });
        const order: string[] = [];
        for (let i = 0; i < 4; i++) {
          order.push((await store.claim({ owner: "w1", leaseMs: LONG_MS }))!.lease.runId);
        }
        expect(order).toEqual(["run_d", "run_b", "run_c", "run_a"]);
      });

      it("takes over a run whose lease ran out: token + 1, journal and answers kept", async () => {
        await halt({ pending: ["r1", "r2"] });
        await store.answer({ id: "r1", ok: true });
        await store.answer({ id: "r2", ok: false, reason: "declined" });
        const first = await claim("run_1", "w1", SHORT_MS);
        expect(first.reason).toBe("ready");
        await store.journal(first.lease, sampleJournalEntry("call_1", { answered: "r1" }));
        await store.journal(first.lease, sampleJournalEntry("call_9", { output: "other" }));
        // Running, but the lease is live: not claimable yet.
        expect(await store.claim({ owner: "w2", leaseMs: LONG_MS })).toBeUndefined();
        await sleep(LAPSE_MS);
        const second = await store.claim({ owner: "w2", leaseMs: LONG_MS });
        expect(second).toMatchObject({
          reason: "takeover",
          lease: { runId: "run_1", owner: "w2", token: first.lease.token + 1 },
          journal: [
            sampleJournalEntry("call_1", { answered: "r1" }),
            sampleJournalEntry("call_9", { output: "other" }),
          ],
          // r1 was applied by the journaled call; r2 is still to apply.
          answers: [{ id: "r2", ok: false, reason: "declined" }],
        });
        expect(await store.getRun("run_1")).toMatchObject({ state: "running", owner: "w2" });

        // The old owner is fenced off everywhere...
        const old = first.lease;
        const next = sampleCheckpoint({ turns: 2 });
        expect(await failure(() => store.step(old, next))).toMatchObject({
          ...leaseLost,
          runId: "run_1",
        });
        expect(await failure(() => store.journal(old, sampleJournalEntry("call_2")))).toMatchObject(
          leaseLost,
        );
        expect(await failure(() => store.renew(old, LONG_MS))).toMatchObject(leaseLost);
        expect(
          await failure(() => store.finish(old, { state: "done", result: sampleResult("run_1") })),
        ).toMatchObject(leaseLost);
        expect(
          await failure(() => store.halt(sampleCheckpoint({ pending: ["r3"] }), old)),
        ).toMatchObject(leaseLost);
        // ...but releasing is quietly ignored: it is giving the run up anyway.
        await store.release(old, sampleError());
        const run = await store.getRun("run_1");
        expect(run).toMatchObject({ state: "running", owner: "w2", failures: 0 });
        expect(run!.lastError).toBeUndefined();
        expect(run!.checkpoint?.turns).toBe(1);

        // ...while the new owner's writes go through.
        await store.step(second!.lease, next);
        await store.finish(second!.lease, { state: "done", result: sampleResult("run_1") });
        expect(await stateOf("run_1")).toBe("done");
      });

      it("fences by owner and token, not by the lease's expiry", async () => {
        const lease = await store.start(sampleCheckpoint(), "w1", SHORT_MS);
        await sleep(LAPSE_MS);
        // Expired but not taken over: the holder can still write, and renew.
        await store.journal(lease, sampleJournalEntry("call_1"));
        const renewed = await store.renew(lease, LONG_MS);
        expect(await store.claim({ owner: "w2", leaseMs: LONG_MS })).toBeUndefined();
        await store.step(renewed, sampleCheckpoint({ turns: 2 }));
        // Another owner or token is not the lease.
        for (const wrong of [
          { ...lease, owner: "w2" },
          { ...lease, token: 2 },
          { ...lease, token: 0 },
          { ...lease, runId: "run_2" },
        ]) {
          const checkpoint = sampleCheckpoint({ runId: wrong.runId });
          expect(await failure(() => store.step(wrong, checkpoint))).toMatchObject(leaseLost);
          expect(await failure(() => store.journal(wrong, sampleJournalEntry("c")))).toMatchObject(
            leaseLost,
          );
          expect(await failure(() => store.renew(wrong, LONG_MS))).toMatchObject(leaseLost);
          expect(
            await failure(() => store.finish(wrong, { state: "failed", error: sampleError() })),
          ).toMatchObject(leaseLost);
          await store.release(wrong, sampleError());
        }
        expect(await store.getRun("run_1")).toMatchObject({
          state: "running",
          owner: "w1",
          failures: 0,
          checkpoint: { turns: 2 },
        });
      });

      it("counts tokens up on every claim, never repeating one", async () => {
        const started = await store.start(sampleCheckpoint(), "w1", LONG_MS);
        expect(started.token).toBe(1);
        await store.release(started);
        const second = await claim("run_1", "w2");
        expect(second.lease.token).toBe(2);
        expect(second.reason).toBe("ready");
        await store.halt(sampleCheckpoint({ pending: ["r1"] }), second.lease);
        await store.answer({ id: "r1", ok: true });
        const third = await claim("run_1", "w1");
        expect(third.lease.token).toBe(3);
        // The old holder w1 with token 1 is not the current w1 with token 3.
        expect(await failure(() => store.step(started, sampleCheckpoint()))).toMatchObject(
          leaseLost,
        );
      });
    });

    describe("renew", () => {
      it("extends the lease: a new lease, same token", async () => {
        const lease = await store.start(sampleCheckpoint(), "w1", SHORT_MS);
        await sleep(20);
        const renewed = await store.renew(lease, LONG_MS);
        expect(renewed).not.toBe(lease);
        expect(renewed).toMatchObject({ runId: "run_1", owner: "w1", token: lease.token });
        expect(renewed.expiresAt).toBeGreaterThan(lease.expiresAt);
        expect(lease.expiresAt).toBeLessThan(renewed.expiresAt);
        expect(Date.parse((await store.getRun("run_1"))!.leaseExpiresAt!)).toBe(renewed.expiresAt);
        await sleep(LAPSE_MS);
        // Renewed past the first expiry: nobody can take it over.
        expect(await store.claim({ owner: "w2", leaseMs: LONG_MS })).toBeUndefined();
      });
    });

    describe("step and journal", () => {
      it("step replaces the checkpoint, clears the journal and the failure count", async () => {
        let lease = await store.start(sampleCheckpoint(), "w1", LONG_MS);
        await store.journal(lease, sampleJournalEntry("call_1"));
        await store.release(lease, sampleError("store_failed"), Date.now() - 1);
        const claimed = await claim("run_1");
        expect(claimed.failures).toBe(1);
        expect(claimed.lastError?.code).toBe("store_failed");
        expect(claimed.journal).toHaveLength(1);
        lease = claimed.lease;
        const next = sampleCheckpoint({ turns: 2 });
        await store.step(lease, next);
        const run = await store.getRun("run_1");
        expect(run).toMatchObject({ state: "running", checkpoint: next, failures: 0 });
        expect(run!.lastError).toBeUndefined();
        await store.release(lease);
        const again = await claim("run_1");
        expect(again).toMatchObject({ journal: [], failures: 0, checkpoint: next });
        expect(again.lastError).toBeUndefined();
      });

      it("refuses an invalid checkpoint in step, changing nothing", async () => {
        const lease = await store.start(sampleCheckpoint(), "w1", LONG_MS);
        const bad = sampleCheckpoint({ turns: 2, pending: ["r1"] });
        bad.pending[0]!.slot = -1;
        expect(await failure(() => store.step(lease, bad))).toMatchObject(checkpointInvalid);
        expect((await store.getRun("run_1"))?.checkpoint?.turns).toBe(1);
      });

      it("keeps every field of the transcript's tool calls (runCallId: a call's id in its run)", async () => {
        // The client gives a call whose provider id repeats an earlier turn's a runCallId, and
        // a re-execution after a takeover must see it again: a store must not drop it.
        const checkpoint = sampleCheckpoint({ pending: ["r1"] });
        const assistant = checkpoint.messages[1] as Extract<Message, { role: "assistant" }>;
        assistant.toolCalls![0]!.runCallId = "call_1@2.0";
        await store.halt(checkpoint);
        const stored = (await store.getRun("run_1"))?.checkpoint?.messages[1];
        expect(stored).toEqual(assistant);
        await store.answer({ id: "r1", ok: true });
        expect((await claim("run_1")).checkpoint.messages[1]).toEqual(assistant);
      });

      it("keeps a pending call's tool and schema fingerprint (what a redeploy is checked against)", async () => {
        // A continuation after a redeploy compares them with the tool registered then: a store
        // that dropped `schema` would let a changed tool run with arguments of its old schema.
        const checkpoint = sampleCheckpoint({ pending: ["r1"] });
        checkpoint.pending[0]!.schema = "0123456789abcdef";
        await store.halt(checkpoint);
        const stored = (await store.getRun("run_1"))?.checkpoint?.pending[0];
        expect(stored).toMatchObject({
          tool: checkpoint.pending[0]!.tool,
          schema: "0123456789abcdef",
        });
        await store.answer({ id: "r1", ok: true });
        expect((await claim("run_1")).checkpoint.pending[0]?.schema).toBe("0123456789abcdef");
      });

      it("a step that no longer lists a pending request keeps that request's answer unapplied", async () => {
        // The client refuses to continue such a run (a damaged or edited row) by reading the
        // request's state: the step must neither apply nor drop the recorded answer.
        await halt({ pending: ["r1"] });
        await store.answer({ id: "r1", ok: true, data: { env: "prod" } });
        const claimed = await claim("run_1");
        await store.step(claimed.lease, { ...claimed.checkpoint, pending: [] });
        await store.release(claimed.lease);
        const run = await store.getRun("run_1");
        expect(run?.checkpoint?.pending).toEqual([]);
        expect(run?.requests.map((r) => [r.request.id, r.state, r.answer])).toEqual([
          ["r1", "answered", { id: "r1", ok: true, data: { env: "prod" } }],
        ]);
        expect(await requestState("r1")).toBe("answered");
        expect((await claim("run_1")).answers).toEqual([]);
      });

      it("journal keeps entries in write order and marks answered requests applied", async () => {
        await halt({ pending: ["r1", "r2", "r3"] });
        await store.answer({ id: "r1", ok: true });
        await store.answer({ id: "r2", ok: true });
        const claimed = await claim("run_1");
        const entries = [
          sampleJournalEntry("call_2", { answered: "r2" }),
          sampleJournalEntry("call_x"),
          sampleJournalEntry("call_1", { output: "third" }),
        ];
        for (const entry of entries) await store.journal(claimed.lease, entry);
        expect(await requestState("r2")).toBe("applied");
        expect(await requestState("r1")).toBe("answered");
        expect(await requestState("r3")).toBe("waiting");
        // A malformed entry is refused and not appended.
        const bad = { callId: "call_3", message: { role: "user", content: "x" } };
        expect(await failure(() => store.journal(claimed.lease, bad as never))).toMatchObject(
          checkpointInvalid,
        );
        await store.release(claimed.lease);
        const again = await claim("run_1");
        expect(again.journal).toEqual(entries);
        expect(again.answers).toEqual([{ id: "r1", ok: true }]);
        expect((await store.list({ state: "applied" })).map((s) => s.request.id)).toEqual(["r2"]);
      });
    });

    describe("release", () => {
      it("gives the run back ready, journal kept, and tells subscribers", async () => {
        const lease = await store.start(sampleCheckpoint(), "w1", LONG_MS);
        await store.journal(lease, sampleJournalEntry("call_1"));
        await store.release(lease);
        const run = await store.getRun("run_1");
        expect(run).toMatchObject({ state: "ready", failures: 0 });
        expect(run!.owner).toBeUndefined();
        expect(run!.leaseExpiresAt).toBeUndefined();
        const claimed = await store.claim({ owner: "w2", leaseMs: LONG_MS });
        expect(claimed).toMatchObject({ reason: "ready", journal: [sampleJournalEntry("call_1")] });
        // Released twice: the second is a lost lease, ignored.
        await store.release(lease);
        expect(await store.getRun("run_1")).toMatchObject({ state: "running", owner: "w2" });
      });

      it("with an error: counts it, records it, and holds the run until retryAt", async () => {
        const lease = await store.start(sampleCheckpoint(), "w1", LONG_MS);
        const error = sampleError("model_failed", "503 from the model");
        await store.release(lease, error, Date.now() + LONG_MS);
        expect(await store.getRun("run_1")).toMatchObject({
          state: "ready",
          failures: 1,
          lastError: error,
        });
        // Not offered to any worker before retryAt...
        expect(await store.claim({ owner: "w2", leaseMs: LONG_MS })).toBeUndefined();
        // ...but a claim by id takes it now.
        const byId = await claim("run_1", "w2");
        expect(byId).toMatchObject({ reason: "ready", failures: 1, lastError: error });

        const second = sampleError("store_failed", "disk full");
        await store.release(byId.lease, second, Date.now() + SHORT_MS);
        expect(await store.getRun("run_1")).toMatchObject({ failures: 2, lastError: second });
        expect(await store.claim({ owner: "w3", leaseMs: LONG_MS })).toBeUndefined();
        await sleep(LAPSE_MS);
        const later = await store.claim({ owner: "w3", leaseMs: LONG_MS });
        expect(later).toMatchObject({ reason: "ready", failures: 2, lastError: second });

        // Released without an error: claimable at once, the count kept.
        await store.release(later!.lease);
        expect(await store.claim({ owner: "w4", leaseMs: LONG_MS })).toMatchObject({
          failures: 2,
          lastError: second,
        });
      });
    });

    describe("finish", () => {
      it("done: the result kept, the checkpoint dropped, open requests applied", async () => {
        await halt({ pending: ["r1", { id: "r2", deadline: isoIn(-1000) }, "r3"] });
        await store.answer({ id: "r1", ok: true });
        const claimed = await claim("run_1");
        await store.journal(claimed.lease, sampleJournalEntry("call_1", { answered: "r1" }));
        const result = sampleResult("run_1", "deployed");
        await store.finish(claimed.lease, { state: "done", result });
        const run = await store.getRun("run_1");
        expect(run).toMatchObject({ runId: "run_1", state: "done" });
        // toEqual: an undefined field (sessionId) does not survive JSON, and need not.
        expect(run!.result).toEqual(result);
        expect(run!.checkpoint).toBeUndefined();
        expect(run!.owner).toBeUndefined();
        expect(run!.requests.map((r) => [r.request.id, r.state])).toEqual([
          ["r1", "applied"],
          ["r2", "applied"],
          ["r3", "applied"],
        ]);
        expect(await store.claim({ owner: "w2", leaseMs: LONG_MS })).toBeUndefined();
        expect(await store.claim({ owner: "w2", leaseMs: LONG_MS, runId: "run_1" })).toBe(
          undefined,
        );
        // The same answer is still a duplicate; a late one conflicts, expired or not.
        expect(await store.answer({ id: "r1", ok: true })).toMatchObject({
          duplicate: true,
          state: "done",
        });
        expect(await failure(() => store.answer({ id: "r2", ok: true }))).toMatchObject(
          conflict("expired"),
        );
        expect(await failure(() => store.answer({ id: "r3", ok: true }))).toMatchObject(
          conflict("answered"),
        );
        expect(
          await failure(() => store.step(claimed.lease, sampleCheckpoint({ turns: 3 }))),
        ).toMatchObject(leaseLost);
        expect(await store.list({ state: "waiting" })).toEqual([]);
      });

      it("failed: the error and checkpoint kept; claimable again only by id", async () => {
        await halt({ pending: ["r1", "r2"] });
        await store.answer({ id: "r1", ok: true });
        const claimed = await claim("run_1");
        await store.journal(claimed.lease, sampleJournalEntry("call_1", { answered: "r1" }));
        const error = sampleError("model_failed", "gave up after 5 failures");
        await store.finish(claimed.lease, { state: "failed", error });
        const run = await store.getRun("run_1");
        expect(run).toMatchObject({ state: "failed", lastError: error });
        expect(run!.checkpoint?.pending.map((p) => p.request.id)).toEqual(["r1", "r2"]);
        expect(run!.result).toBeUndefined();
        expect(run!.requests.map((r) => r.state)).toEqual(["applied", "applied"]);
        expect(await failure(() => store.answer({ id: "r2", ok: true }))).toMatchObject(
          conflict("answered"),
        );
        expect(await store.claim({ owner: "w2", leaseMs: LONG_MS })).toBeUndefined();
        const again = await claim("run_1", "w2");
        expect(again).toMatchObject({
          reason: "failed",
          lastError: error,
          journal: [],
          answers: [],
          lease: { token: claimed.lease.token + 1 },
        });
        expect(await stateOf("run_1")).toBe("running");
        await store.finish(again.lease, { state: "done", result: sampleResult("run_1") });
        expect(await stateOf("run_1")).toBe("done");
      });
    });

    describe("reads", () => {
      it("getRun reports a running run's owner and lease, and an expired waiting run", async () => {
        const lease = await store.start(sampleCheckpoint({ runId: "run_1" }), "w1", LONG_MS);
        expect(await store.getRun("run_1")).toMatchObject({
          state: "running",
          owner: "w1",
          leaseExpiresAt: new Date(lease.expiresAt).toISOString(),
        });
        await halt({
          runId: "run_2",
          pending: [
            { id: "r1", deadline: isoIn(-1) },
            { id: "r2", deadline: isoIn(LONG_MS) },
          ],
        });
        const run = await store.getRun("run_2");
        expect(run?.state).toBe("expired");
        expect(run?.requests.map((r) => r.state)).toEqual(["expired", "waiting"]);
        expect(await store.getRun("nope")).toBeUndefined();
        expect(await store.getRequest("nope")).toBeUndefined();
      });

      it("list: newest first, filtered by state, session, kind, run and limit", async () => {
        await halt({
          runId: "run_a",
          sessionId: "s1",
          agent: "ops",
          pending: [
            { id: "a1", kind: "approval", deadline: isoIn(LONG_MS) },
            { id: "a2", kind: "input" },
          ],
        });
        await sleep(5);
        await halt({
          runId: "run_b",
          sessionId: "s2",
          pending: [{ id: "b1", kind: "approval", deadline: isoIn(-1000) }],
        });
        await sleep(5);
        await halt({ runId: "run_c", sessionId: "s1", pending: ["c1"] });
        await store.answer({ id: "a2", ok: true });
        await store.answer({ id: "c1", ok: true });
        const claimed = await claim("run_c");
        await store.finish(claimed.lease, { state: "done", result: sampleResult("run_c") });

        const ids = async (filter?: Parameters<RunStore["list"]>[0]) =>
          (await store.list(filter)).map((s) => s.request.id);
        expect(await ids()).toEqual(["c1", "b1", "a1", "a2"]);
        expect(await ids({ state: "waiting" })).toEqual(["a1"]);
        expect(await ids({ state: "expired" })).toEqual(["b1"]);
        expect(await ids({ state: "answered" })).toEqual(["a2"]);
        expect(await ids({ state: "applied" })).toEqual(["c1"]);
        expect(await ids({ sessionId: "s1" })).toEqual(["c1", "a1", "a2"]);
        expect(await ids({ kind: "approval" })).toEqual(["b1", "a1"]);
        expect(await ids({ runId: "run_a" })).toEqual(["a1", "a2"]);
        expect(await ids({ sessionId: "s1", kind: "input" })).toEqual(["c1", "a2"]);
        expect(await ids({ limit: 2 })).toEqual(["c1", "b1"]);
        expect(await ids({ sessionId: "s9" })).toEqual([]);

        const [a1] = await store.list({ runId: "run_a", kind: "approval" });
        expect(a1).toMatchObject({
          request: { id: "a1", kind: "approval", prompt: "question 1" },
          runId: "run_a",
          sessionId: "s1",
          agent: "ops",
          state: "waiting",
        });
        expect(Number.isNaN(Date.parse(a1!.createdAt))).toBe(false);
        expect(Date.parse(a1!.expiresAt!)).toBeGreaterThan(Date.now());
        const [b1] = await store.list({ runId: "run_b" });
        expect(b1?.agent).toBeUndefined();
        expect(b1?.state).toBe("expired");
      });

      it("getRequest returns the request with its state, answer and deadline", async () => {
        const deadline = isoIn(LONG_MS);
        await halt({ pending: [{ id: "r1", deadline }] });
        const info: RequestInfo | undefined = await store.getRequest("r1");
        expect(info).toEqual({
          request: { id: "r1", kind: "input", prompt: "question 1" },
          runId: "run_1",
          state: "waiting",
          expiresAt: deadline,
        });
        await store.answer({ id: "r1", ok: true, data: { x: 1 } });
        expect(await store.getRequest("r1")).toEqual({
          ...info,
          state: "answered",
          answer: { id: "r1", ok: true, data: { x: 1 } },
          // When it was recorded (see the events contract: kept for every answer).
          answeredAt: expect.any(String),
        });
      });
    });

    describe("prune", () => {
      it("refuses a cutoff that is not one", async () => {
        for (const olderThan of [new Date("nope"), -1, Number.NaN, Number.POSITIVE_INFINITY]) {
          expect(await failure(() => store.prune({ olderThan }))).toBeInstanceOf(TypeError);
        }
        expect(await failure(() => store.prune({ olderThan: "1d" } as never))).toBeInstanceOf(
          TypeError,
        );
      });

      it("deletes done and failed runs finished at or before the cutoff, with their requests", async () => {
        const finishRun = async (runId: string, outcome: "done" | "failed") => {
          await halt({ runId, pending: [`${runId}_r`] });
          await store.answer({ id: `${runId}_r`, ok: true });
          const { lease } = await claim(runId);
          await store.journal(lease, sampleJournalEntry("call_1"));
          await store.finish(
            lease,
            outcome === "done"
              ? { state: "done", result: sampleResult(runId) }
              : { state: "failed", error: sampleError() },
          );
        };
        await finishRun("old_done", "done");
        await finishRun("old_failed", "failed");
        await sleep(30);
        const cutoff = new Date();
        await sleep(30);
        await finishRun("new_done", "done");
        await halt({ runId: "waiting", pending: ["w_r"] });
        await store.start(sampleCheckpoint({ runId: "running" }), "w1", LONG_MS);

        expect(await store.prune({ olderThan: cutoff })).toBe(2);
        expect(await store.getRun("old_done")).toBeUndefined();
        expect(await store.getRun("old_failed")).toBeUndefined();
        expect(await store.getRequest("old_done_r")).toBeUndefined();
        expect(await failure(() => store.answer({ id: "old_done_r", ok: true }))).toMatchObject(
          notFound,
        );
        expect(await store.claim({ owner: "w", leaseMs: LONG_MS, runId: "old_failed" })).toBe(
          undefined,
        );
        expect(await stateOf("new_done")).toBe("done");
        // An age: nothing finished an hour ago; then everything finished up to now.
        expect(await store.prune({ olderThan: 60 * 60_000 })).toBe(0);
        await sleep(5);
        expect(await store.prune({ olderThan: 0 })).toBe(1);
        expect(await store.getRun("new_done")).toBeUndefined();
        expect(await stateOf("waiting")).toBe("waiting");
        expect(await stateOf("running")).toBe("running");
        expect((await store.list()).map((s) => s.request.id)).toEqual(["w_r"]);
        expect(await store.prune({ olderThan: new Date(Date.now() + LONG_MS) })).toBe(0);
      });
    });

    describe("subscribe (when the store offers it)", () => {
      it("tells subscribers, asynchronously, when a run may have become claimable", async () => {
        if (store.subscribe === undefined) return;
        let calls = 0;
        const unsubscribe = store.subscribe(() => {
          calls++;
        });
        // A store may tell more often than needed, never less.
        const tells = async (action: () => unknown) => {
          await sleep(20);
          const before = calls;
          await action();
          for (let i = 0; i < 100 && calls === before; i++) await sleep(10);
          expect(calls).toBeGreaterThan(before);
        };
        await halt({ pending: ["r1", "r2"] });
        await tells(async () => {
          const answering = store.answer({ id: "r1", ok: true });
          // Never from inside the call: a subscriber may well call the store.
          expect(calls).toBe(0);
          await answering;
        });
        const claimed = await claim("run_1");
        await store.answer({ id: "r2", ok: true });
        const next = sampleCheckpoint({ pending: ["r2"], turns: 2 });
        await tells(async () =>
          expect(await store.halt(next, claimed.lease)).toEqual({ state: "ready" }),
        );
        const again = await claim("run_1");
        await tells(() => store.release(again.lease, sampleError(), Date.now() + LONG_MS));
        await sleep(20);
        unsubscribe();
        const after = calls;
        const third = await claim("run_1");
        await store.release(third.lease);
        await sleep(50);
        expect(calls).toBe(after);
      });
    });

    describe("ids kept exactly or refused", () => {
      idContract(() => store);
    });

    describe("run events, who answered, and cancel", () => {
      eventsContract(() => store);
    });

    describe("operating runs: list, retry, journal", () => {
      operationsContract(() => store);
    });

    describe("questions that wait too long: claimDue", () => {
      dueContract(() => store);
    });

    describe("huge ids", () => {
      it("keep error messages short", async () => {
        // The longest id a store keeps (longer ones are refused: see the id cases).
        const huge = `id_${"x".repeat(MAX_STORE_ID_CHARS - 3)}`;
        const short = (error: Record<string, unknown>) => {
          expect(String(error.message).length).toBeLessThan(1000);
          return error;
        };
        expect(short(await failure(() => store.answer({ id: huge, ok: true })))).toMatchObject(
          notFound,
        );
        await halt({ runId: huge, pending: [huge] });
        await store.answer({ id: huge, ok: true });
        expect(short(await failure(() => store.answer({ id: huge, ok: false })))).toMatchObject(
          conflict("answered"),
        );
        expect(
          short(await failure(() => store.halt(sampleCheckpoint({ runId: huge, pending: ["r"] })))),
        ).toMatchObject(runExists);
        const lease = { runId: huge, owner: "w1", token: 7, expiresAt: Date.now() + LONG_MS };
        expect(
          short(await failure(() => store.step(lease, sampleCheckpoint({ runId: huge })))),
        ).toMatchObject(leaseLost);
        expect(short(await failure(() => store.renew(lease, LONG_MS)))).toMatchObject(leaseLost);
        const claimed = await claim(huge);
        expect(claimed.answers).toEqual([{ id: huge, ok: true }]);
        expect((await store.getRun(huge))?.runId).toBe(huge);
        const deadline = isoIn(-1000);
        const hugeRequest = `r_${"y".repeat(MAX_STORE_ID_CHARS - 2)}`;
        await halt({ runId: "run_2", pending: [{ id: hugeRequest, deadline }] });
        expect(
          short(await failure(() => store.answer({ id: hugeRequest, ok: true }))),
        ).toMatchObject(conflict("expired"));
      });
    });
  });
}
