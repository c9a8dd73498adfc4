// Following a durable run's recorded events from any process: read what is recorded, then wait
// for more (the store's wake-up where it has one, plus a poll as a safety net) until the run
// ends. Store-agnostic, so `client.follow` and a web handler's event stream share it.
import { RunNotFoundError, StoreUnsupportedError } from "./errors.js";
import {
  checkEventOffset,
  MAX_EVENTS_PER_READ,
  type RecordedRunEvent,
  TERMINAL_RUN_EVENTS,
} from "./run-events.js";
import type { RunState, RunStore } from "./stores.js";

/** Options of {@link followRunEvents}. */
export interface FollowOptions {
  /** Yield the events with an offset above this one (default 0: from the first). */
  after?: number;
  /** Stops following when it aborts: the iteration ends without an error. */
  signal?: AbortSignal;
  /**
   * How often to read again when no wake-up came (ms, default {@link DEFAULT_FOLLOW_POLL_MS}):
   * the safety net for stores that cannot tell this process about another's writes.
   */
  pollMs?: number;
}

/** The default poll interval of {@link followRunEvents}. */
export const DEFAULT_FOLLOW_POLL_MS = 250;

// States after which a run records nothing more, for runs whose end has no event (recorded
// before the store kept events): a follower stops there instead of waiting forever.
const ENDED: ReadonlySet<RunState> = new Set(["done", "failed", "cancelled"]);

/**
 * A run's recorded events, oldest first, from `after` on: everything recorded so far, then each
 * new event as it is recorded, ending after a terminal event (`done`, `failed`, `cancelled`) or
 * when `signal` aborts. Each offset is yielded once, in order: following again with the last
 * offset seen as `after` loses and repeats nothing.
 *
 * Throws {@link StoreUnsupportedError} for a store without `readEvents`, and
 * {@link RunNotFoundError} when the store has no such run (unknown, or pruned while followed).
 */
export async function* followRunEvents(
  store: RunStore,
  runId: string,
  options: FollowOptions = {},
): AsyncGenerator<RecordedRunEvent, void, undefined> {
  if (typeof store.readEvents !== "function") {
    throw new StoreUnsupportedError("readEvents", "following a run's events");
  }
  let after = checkEventOffset(options.after ?? 0, "followRunEvents");
  const pollMs = checkPollMs(options.pollMs);
  const { signal } = options;
  if (signal?.aborted) return;

  // Watch before the first read, so that an event recorded between a read and the wait wakes it.
  const wake = new WakeUp();
  const unwatch = store.watchEvents?.(runId, () => wake.ring());
  try {
    let checkRun = true;
    for (;;) {
      // On the first pass and after each quiet poll: is the run (still) there, has it ended?
      let state: RunState | undefined;
      if (checkRun) {
        const run = await store.getRun(runId);
        if (run === undefined) throw new RunNotFoundError(runId);
        state = run.state;
      }
      // Read everything recorded since `after` (in pages of the most a read returns).
      for (;;) {
        const page = await store.readEvents(runId, after, MAX_EVENTS_PER_READ);
        for (const event of page) {
          if (event.offset <= after) continue; // never repeat an offset, whatever the store does
          after = event.offset;
          yield event;
          if (TERMINAL_RUN_EVENTS.has(event.type) || signal?.aborted) return;
        }
        if (page.length < MAX_EVENTS_PER_READ) break;
      }
      // The state was read before the events, and a store records the final event in the same
      // write as the final state: an ended run without a terminal event never gets one.
      if (state !== undefined && ENDED.has(state)) return;
      if (signal?.aborted) return;
      checkRun = !(await wake.wait(pollMs, signal));
      if (signal?.aborted) return;
    }
  } finally {
    unwatch?.();
  }
}

function checkPollMs(pollMs: unknown): number {
  if (pollMs === undefined) return DEFAULT_FOLLOW_POLL_MS;
  if (typeof pollMs !== "number" || !Number.isFinite(pollMs) || pollMs <= 0) {
    throw new TypeError("followRunEvents: pollMs must be a positive number of milliseconds");
  }
  return pollMs;
}

/** A wake-up that is not lost when it rings before anyone waits. */
class WakeUp {
  #rung = false;
  #resolve: ((rung: boolean) => void) | undefined;

  ring(): void {
    this.#rung = true;
    this.#resolve?.(true);
  }

  /** Resolves `true` when rung (now or while waiting), `false` after `ms` or on abort. */
  wait(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
    if (this.#rung) {
      this.#rung = false;
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const done = (rung: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.#resolve = undefined;
        this.#rung = false;
        resolve(rung);
      };
      const onAbort = () => done(false);
      const timer = setTimeout(() => done(false), ms);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#resolve = done;
    });
  }
}
