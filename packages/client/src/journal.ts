// A durable run's writes, under its lease: each step and each finished call is in the store
// before the run moves on, and the lease is renewed in the background while the run works.
import {
  type CancelInfo,
  type Checkpoint,
  type Durability,
  type JournalEntry,
  type Lease,
  LeaseLostError,
  type Message,
  type RunErrorInfo,
  type RunOutcome,
  type RunStore,
} from "@toolnexus/core";
import { CancelRequestedError, messageOf, RunError } from "./errors.js";
import { RunRecorder } from "./run-recorder.js";

/** Whether `await value` would wait on it (a promise, or any object with a `then` method). */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  if (value === null || (typeof value !== "object" && typeof value !== "function")) return false;
  return typeof (value as { then?: unknown }).then === "function";
}

/** Waits before a failed run is offered to a worker again: 1 s, 2 s, 4 s… up to a minute. */
export function retryDelayMs(failures: number): number {
  return Math.min(60_000, 1000 * 2 ** Math.max(0, failures - 1));
}

export class Journal {
  /**
   * A stopped journal (with its recorder) and an idle timer, made at the first journal, that keep
   * the hidden classes of a lease's objects for the life of the process; see the end of this file.
   */
  static readonly shapes: readonly object[] = [];
  lease: Lease;
  /** Set when a write or a renewal found that another worker took the run over. */
  lost: LeaseLostError | undefined;
  /** Set when a renewal said someone cancelled the run (`client.cancel`): the run stops. */
  cancel: CancelInfo | undefined;
  /** The run's events for followers, when the store keeps them (`appendEvents`). */
  readonly recorder: RunRecorder | undefined;
  /**
   * The last event write still in flight (never rejects): the next one starts after it. Unset
   * while none is, which is always so with a store that answers at once (the in-memory one).
   */
  private appending: Promise<void> | undefined;
  /** The run's steps under this lease: the store as the loop's durability backend. */
  steps: Durability | undefined;
  /**
   * Made only when someone reads `signal`: most continuations never lose their lease, and on
   * Node 20 an AbortSignal costs a few microseconds of a resume.
   */
  private controller: AbortController | undefined;
  /** Why the run was stopped (a lost lease, a cancel), once it was: the first reason only. */
  private stopped: { reason: unknown } | undefined;
  /** Who is told when the run is stopped, without an AbortSignal (see `onStop`). */
  private stopListeners: Set<(reason: unknown) => void> | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private renewing = false;
  /** True once renewal stopped. */
  private closed = false;
  /** True once the lease was given up by a halt or a finish. */
  private givenUp = false;

  constructor(
    readonly store: RunStore,
    lease: Lease,
    private readonly leaseMs: number,
    /** Errors recorded on the run before this lease (for the retry delay). */
    private readonly failures: number,
    private readonly transcript: () => Message[],
  ) {
    this.lease = lease;
    if (typeof store.appendEvents === "function") this.recorder = new RunRecorder();
    // Renew well before expiry; a renewal that fails for a passing reason is retried on the
    // next tick, and one that finds the lease taken stops the run.
    this.timer = setInterval(() => void this.renew(), Math.max(20, Math.floor(leaseMs / 3)));
    // The renewal alone must not keep a process alive.
    this.timer.unref?.();
    if (!shapesKept) keepShapes();
  }

  /** Aborts when the lease is lost or someone cancels the run; already aborted if read after. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.stopped !== undefined) this.controller.abort(this.stopped.reason);
    }
    return this.controller.signal;
  }

  /** True once the lease was lost or the run cancelled (what `signal.aborted` would say). */
  get aborted(): boolean {
    return this.stopped !== undefined;
  }

  /** Why the run was stopped (what `signal.reason` would say), or undefined. */
  get reason(): unknown {
    return this.stopped?.reason;
  }

  /**
   * Calls `listener` with the reason when the run is stopped (once, like an abort listener),
   * without making the signal; returns what removes it.
   */
  onStop(listener: (reason: unknown) => void): () => void {
    // Made on first use: most runs are never stopped, and few have a listener.
    this.stopListeners ??= new Set();
    const listeners = this.stopListeners;
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  /** Stops the run: the signal (if made) aborts and the listeners are told, the first time. */
  private abort(reason: unknown): void {
    if (this.stopped !== undefined) return;
    this.stopped = { reason };
    this.controller?.abort(reason);
    const listeners = this.stopListeners;
    if (listeners === undefined) return;
    for (const listener of [...listeners]) {
      listeners.delete(listener);
      listener(reason);
    }
  }

  private async renew(): Promise<void> {
    if (this.renewing || this.closed) return;
    this.renewing = true;
    try {
      const renewed = await this.store.renew(this.lease, this.leaseMs);
      if (this.closed) return;
      this.lease = renewed;
      if (renewed.cancel !== undefined && this.cancel === undefined) {
        // Someone cancelled the run: its tools see their signal abort, naming who and why.
        this.cancel = renewed.cancel;
        this.abort(new CancelRequestedError(this.lease.runId, renewed.cancel));
        return;
      }
      // A long call's progress reaches followers between the run's own writes.
      if (this.recorder?.pending) await this.appendEvents()?.catch(() => {});
    } catch (thrown) {
      if (thrown instanceof LeaseLostError) this.lose(thrown);
    } finally {
      this.renewing = false;
    }
  }

  private lose(error: LeaseLostError): void {
    this.lost ??= error;
    this.stop();
    this.abort(error);
  }

  /** Stops renewing; the lease then runs out unless it was given up. */
  stop(): void {
    this.closed = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * `op`, a store write under this lease; a failure becomes the error the run rejects with. Not
   * async: with a store that answers at once (the in-memory one), an async wrapper cost two
   * promises and microtask turns per write.
   */
  private write<T>(what: string, op: () => T | Promise<T>): Promise<T> {
    if (this.lost !== undefined) {
      return Promise.reject(
        new RunError(
          "lease_lost",
          this.lost.message,
          this.transcript(),
          this.lease.runId,
          this.lost,
        ),
      );
    }
    let value: T | Promise<T>;
    try {
      value = op();
    } catch (thrown) {
      return Promise.reject(this.failed(what, thrown));
    }
    if (!isThenable(value)) return Promise.resolve(value);
    return Promise.resolve(value).then(undefined, (thrown: unknown) => {
      throw this.failed(what, thrown);
    });
  }

  /** The error a failed write rejects with; a lost lease also stops the run. */
  private failed(what: string, thrown: unknown): RunError {
    const runId = this.lease.runId;
    if (thrown instanceof LeaseLostError) {
      this.lose(thrown);
      return new RunError("lease_lost", thrown.message, this.transcript(), runId, thrown);
    }
    return new RunError(
      "store_failed",
      `could not ${what} of run ${runId}: ${messageOf(thrown)}`,
      this.transcript(),
      runId,
      thrown,
    );
  }

  /**
   * Writes the events recorded since the last write, if any: before each durable write, so a
   * follower sees them in the order they happened, at most one extra write per durable write.
   * Undefined when there is nothing to wait for: a store that answers at once wrote them here
   * (or there were none), and no earlier event write is in flight. Rejects as the write
   * would, the events kept for the next try.
   */
  private appendEvents(): Promise<void> | undefined {
    const recorder = this.recorder;
    if (recorder === undefined || !recorder.pending) return this.appending;
    const events = recorder.drain();
    const append = (): unknown => this.store.appendEvents!(this.lease, events);
    const restore = (thrown: unknown): never => {
      recorder.restore(events);
      throw thrown;
    };
    if (this.appending === undefined && this.lost === undefined) {
      // Nothing in flight: written now, and waited for only if the store answers with a promise.
      let value: unknown;
      try {
        value = append();
      } catch (thrown) {
        recorder.restore(events);
        return Promise.reject(this.failed("record the events", thrown));
      }
      if (!isThenable(value)) return undefined;
      return this.inOrder(
        Promise.resolve(value).then(
          () => {},
          (thrown: unknown) => restore(this.failed("record the events", thrown)),
        ),
      );
    }
    const after = this.appending ?? Promise.resolve();
    return this.inOrder(
      after.then(() => this.write("record the events", append)).then(() => {}, restore),
    );
  }

  /** Makes `append` the write the next event write waits for, until it settles. */
  private inOrder(append: Promise<void>): Promise<void> {
    const settled: Promise<void> = append.then(
      () => this.settledAppend(settled),
      () => this.settledAppend(settled),
    );
    this.appending = settled;
    return append;
  }

  private settledAppend(settled: Promise<void>): void {
    if (this.appending === settled) this.appending = undefined;
  }

  // Not async: with a store that answers at once, a step or a journaled call is written in the
  // call, not after microtask turns.
  step(checkpoint: Checkpoint): Promise<void> {
    const before = this.appendEvents();
    const write = () => this.write("write a step", () => this.store.step(this.lease, checkpoint));
    return before === undefined ? write() : before.then(write);
  }

  entry(entry: JournalEntry): Promise<void> {
    const before = this.appendEvents();
    const write = () => this.write("journal a call", () => this.store.journal(this.lease, entry));
    return before === undefined ? write() : before.then(write);
  }

  async halt(checkpoint: Checkpoint): Promise<"waiting" | "ready"> {
    const before = this.appendEvents();
    if (before !== undefined) await before;
    const said = await this.write("save the halt", () => this.store.halt(checkpoint, this.lease));
    this.givenUp = true;
    this.stop();
    if (typeof said === "object" && said !== null) {
      // The store says whether a cancel asked while the run worked ended it instead.
      if (said.state === "cancelled") this.cancel ??= said.cancel;
      return said.state === "ready" ? "ready" : "waiting";
    }
    if (typeof this.store.cancel === "function" && this.cancel === undefined) {
      // A store of the earlier contract says only "waiting" or "ready": read the run to learn
      // whether a cancel after the last renewal ended it instead.
      try {
        const info = await this.store.getRun(this.lease.runId);
        if (info?.state === "cancelled") this.cancel = info.cancel ?? { at: info.updatedAt };
      } catch {
        // The halt is saved; a failed read only leaves the cancel to the next reader.
      }
    }
    return said === "ready" ? "ready" : "waiting";
  }

  async finish(outcome: RunOutcome): Promise<void> {
    const before = this.appendEvents();
    if (before !== undefined) await before;
    await this.write("save the result", () => this.store.finish(this.lease, outcome));
    this.givenUp = true;
    this.stop();
  }

  /**
   * Gives the run back as `ready` for any worker, recording the error that stopped it (if any)
   * so it is retried after a delay. Never throws: when even this write fails, the lease runs
   * out and another worker takes the run over.
   */
  async release(error?: RunErrorInfo): Promise<void> {
    if (this.givenUp || this.lost !== undefined) return;
    this.stop();
    // What happened before the error is worth following too.
    await this.appendEvents()?.catch(() => {});
    try {
      if (error === undefined) await this.store.release(this.lease);
      else
        await this.store.release(this.lease, error, Date.now() + retryDelayMs(this.failures + 1));
    } catch {
      // The lease expiry is the fallback.
    }
  }
}

/** What the store records of an error: its code and message, never its stack or cause. */
export function errorInfo(thrown: unknown): RunErrorInfo {
  const code =
    typeof (thrown as { code?: unknown })?.code === "string"
      ? (thrown as { code: string }).code
      : "error";
  return { code, message: messageOf(thrown).slice(0, 2000), at: new Date().toISOString() };
}

// Like Run.shapes (run-state.ts): a full GC that fell while no durable run was in flight threw
// away the hidden classes of its journal and recorder, and with them the compiled code of the
// durable path (`node --trace-deopt`: "weak objects"), which was then compiled again. One
// journal, stopped at once (its renewal timer cleared), keeps them; it holds an inert store that
// is never called and a lease on no run. So do Node's timer objects: the renewal's Timeout, and
// the list Node keeps of the timers of one duration, which it drops with its last timer. One
// unref'd timer that does nothing keeps both (it fires once every 24.8 days, Node's longest
// interval, and never holds the process open). Made at the first journal, not when the module loads: a runtime may refuse timers at
// start-up, and a process that never runs a durable run needs none of it.
let shapesKept = false;

function keepShapes(): void {
  shapesKept = true;
  const inert = { appendEvents: () => 0 } as unknown as RunStore;
  const kept = new Journal(
    inert,
    { runId: "run_shape", owner: "", token: 0, expiresAt: 0 },
    60_000,
    0,
    () => [],
  );
  kept.stop();
  const idle = setInterval(() => {}, 2 ** 31 - 1);
  idle.unref?.();
  (Journal.shapes as object[]).push(kept, idle);
}
