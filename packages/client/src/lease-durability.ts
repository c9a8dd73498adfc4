// A run store as the loop's durability backend, for one run under one lease: a tool step's
// result is journaled under the lease (a lost lease refuses the write, so a paused worker
// cannot overwrite its successor), a step a claim found journaled is replayed from its entry,
// and the attempt is the store's count of claims since the checkpoint. A model turn is recorded
// by the checkpoint the loop writes right after it (a takeover continues from there and never
// asks for that step again). Under an engine (`inner`), the engine's step runs inside.
import type { AwaitedRequest, Durability, DurableStep, JournalEntry } from "@toolnexus/core";
import { toolStepKey } from "@toolnexus/core";
import type { Settled } from "./call-outcome.js";
import type { Journal } from "./journal.js";
import { entryOf } from "./journaled-call.js";
import { waitForAnswers } from "./store-answers.js";

export class LeaseDurability implements Durability {
  /** One never-used instance, kept for its hidden class (see Journal.shapes). */
  static readonly shapes: readonly object[] = [];
  /** The claim's journal, by step key. */
  private readonly recorded = new Map<string, JournalEntry>();

  constructor(
    private readonly journal: Journal,
    journaled: readonly JournalEntry[],
    /** The attempt of a call's execution, from the claims since the checkpoint. */
    private readonly attemptOf: (callId: string) => number,
    private readonly inner: Durability | undefined,
  ) {
    for (const entry of journaled) {
      this.recorded.set(toolStepKey(entry.callId, entry.answered), entry);
    }
  }

  async step<T>(step: DurableStep, work: (attempt: number) => Promise<T>): Promise<T> {
    const { callId } = step;
    if (step.kind !== "tool" || callId === undefined) {
      return this.inner === undefined ? work(1) : this.inner.step(step, work);
    }
    const entry = this.recorded.get(step.key);
    if (entry !== undefined) return settledOf(entry) as T;
    const result = await (this.inner === undefined
      ? work(this.attemptOf(callId))
      : this.inner.step(step, work));
    await this.journal.entry(entryOf(callId, result as Settled, step.requestId));
    return result;
  }

  /** Waits on the store for answers (recorded there by `answer`, from any process). */
  answers(requests: readonly AwaitedRequest[]) {
    return waitForAnswers(this.journal.store, requests, this.journal.signal);
  }
}

/** A journaled call as its step's result. */
function settledOf(entry: JournalEntry): Settled {
  const settled: Settled = { message: entry.message, record: entry.record };
  if (entry.pending !== undefined) settled.pending = entry.pending;
  return settled;
}

// See Journal.shapes: one instance that never journals keeps this class's hidden class.
(LeaseDurability.shapes as object[]).push(
  new LeaseDurability({} as Journal, [], () => 1, undefined),
);
