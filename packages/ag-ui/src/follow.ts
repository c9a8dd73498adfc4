// One AG-UI run over a toolnexus run's recorded events: RUN_STARTED, then the events recorded
// after `after`, as they are recorded (by this process or a worker in another one), until the
// run halts for a person, ends, or the stream reaches its cap.
import type { AGUIEvent } from "@ag-ui/core";
import {
  followRunEvents,
  type RecordedRunEvent,
  type RunInfo,
  RunNotFoundError,
  type RunStore,
} from "@toolnexus/core";
import { type AgUiRunIds, createAgUiEventMapper, type PendingCallInfo } from "./mapper.js";

/** Options of {@link followAsAgUi}. */
export interface FollowAsAgUiOptions extends AgUiRunIds {
  /** Map the events recorded after this offset (default 0: from the first). */
  after?: number;
  /** Stops following: the iteration ends without RUN_FINISHED. */
  signal?: AbortSignal;
  /** How often to read again when the store gave no wake-up (ms, default 250). */
  pollMs?: number;
  /** The most AG-UI events yielded; past it the run ends with RUN_ERROR `stream_limit`. */
  maxEvents?: number;
  /**
   * The longest the stream stays open (ms, default 30 minutes); then RUN_ERROR `stream_limit`
   * (the run goes on: a new request follows it again).
   */
  maxMs?: number;
  /**
   * How long to wait for a run that is not in the store yet (ms, default 30 000): a `start` that
   * hands the run to a worker returns before the worker stores it.
   */
  waitForRunMs?: number;
  /** An unexpected error (a store failure): return an id to name in the RUN_ERROR's message. */
  onError?: (error: unknown) => string | undefined;
}

/** Default {@link FollowAsAgUiOptions.maxEvents}. */
export const DEFAULT_MAX_STREAM_EVENTS = 100_000;
/** The most AG-UI events one recorded event becomes, with what it closes and RUN_ERROR after. */
const MAX_EVENTS_PER_RECORD = 12;
/** Default {@link FollowAsAgUiOptions.maxMs}: 30 minutes. */
export const DEFAULT_MAX_STREAM_MS = 30 * 60 * 1000;
/** Default {@link FollowAsAgUiOptions.waitForRunMs}. */
export const DEFAULT_WAIT_FOR_RUN_MS = 30_000;

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** Waits for the run to be stored; undefined when it is not there in time (or the wait aborts). */
async function runAppears(
  store: RunStore,
  runId: string,
  waitMs: number,
  pollMs: number,
  signal: AbortSignal | undefined,
): Promise<RunInfo | undefined> {
  const until = Date.now() + waitMs;
  for (;;) {
    const run = await store.getRun(runId);
    if (run !== undefined) return run;
    if (signal?.aborted || Date.now() >= until) return undefined;
    await sleep(pollMs, signal);
  }
}

/** Whether the caller may see `run`: asked once the run is in the store, before any event. */
export type MayFollow = (run: RunInfo) => Promise<boolean>;

/**
 * What the requests of a `suspended` event stand at now, by request id: the call each halted,
 * its deadline, and whether it still waits. An answer that arrived while the run was running
 * makes the halt `ready` at once, and a worker goes on without asking anyone.
 */
async function pendingCalls(
  store: RunStore,
  runId: string,
  event: RecordedRunEvent,
): Promise<Map<string, PendingCallInfo>> {
  const run = await store.getRun(runId);
  const callIds = new Map<string, string>();
  for (const call of run?.checkpoint?.pending ?? []) callIds.set(call.request.id, call.callId);
  const calls = new Map<string, PendingCallInfo>();
  const requests = Array.isArray(event.data.requests) ? event.data.requests : [];
  for (const request of requests as { id?: unknown }[]) {
    if (typeof request?.id !== "string") continue;
    const info = await store.getRequest(request.id);
    const known: PendingCallInfo = { open: info?.state === "waiting" };
    const toolCallId = callIds.get(request.id);
    if (toolCallId !== undefined) known.toolCallId = toolCallId;
    if (info?.expiresAt !== undefined) known.expiresAt = info.expiresAt;
    calls.set(request.id, known);
  }
  return calls;
}

/**
 * A toolnexus run as one AG-UI run: RUN_STARTED, the mapped events recorded after `after`, and
 * RUN_FINISHED (`outcome` `interrupt` when it halts for a person, `success` with the final text
 * as `result`, `cancelled`) or RUN_ERROR (the run failed; or `not_found`, `stream_limit`,
 * `internal`). Ends early, without a last event, only when `signal` aborts.
 */
export function followAsAgUi(
  store: RunStore,
  runId: string,
  options: FollowAsAgUiOptions,
): AsyncGenerator<AGUIEvent, void, undefined> {
  return followAsAgUiIf(store, runId, options, undefined);
}

/**
 * {@link followAsAgUi} for the handler: once the run is in the store, `mayFollow` decides whether
 * the caller sees anything of it (when not: RUN_ERROR `not_found`, as for a run never stored).
 */
export async function* followAsAgUiIf(
  store: RunStore,
  runId: string,
  options: FollowAsAgUiOptions,
  mayFollow: MayFollow | undefined,
): AsyncGenerator<AGUIEvent, void, undefined> {
  const { signal } = options;
  // The client going away or the stream's time cap: either stops the follower.
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal?.addEventListener("abort", onAbort, { once: true });
  if (signal?.aborted) stop.abort();
  const maxMs = options.maxMs ?? DEFAULT_MAX_STREAM_MS;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    stop.abort();
  }, maxMs);
  try {
    yield* follow(store, runId, options, stop.signal, () => timedOut, maxMs, mayFollow);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

async function* follow(
  store: RunStore,
  runId: string,
  options: FollowAsAgUiOptions,
  signal: AbortSignal,
  timedOut: () => boolean,
  maxMs: number,
  mayFollow: MayFollow | undefined,
): AsyncGenerator<AGUIEvent, void, undefined> {
  const pollMs = options.pollMs ?? 250;
  const maxEvents = options.maxEvents ?? DEFAULT_MAX_STREAM_EVENTS;
  const mapper = createAgUiEventMapper({ threadId: options.threadId, runId: options.runId });
  let sent = 1;
  yield mapper.runStarted();
  const failure = (error: unknown): AGUIEvent[] => {
    if (error instanceof RunNotFoundError) {
      return mapper.fail("not_found", "the run is not in the store (it may have been pruned)");
    }
    const errorId = options.onError?.(error);
    return mapper.fail(
      "internal",
      `the server failed while following the run${errorId === undefined ? "" : `; its log has the error under ${errorId}`}`,
    );
  };
  let out: AGUIEvent[] = [];
  try {
    const waitMs = options.waitForRunMs ?? DEFAULT_WAIT_FOR_RUN_MS;
    const run = await runAppears(store, runId, waitMs, pollMs, signal);
    if (run === undefined) {
      if (signal.aborted && !timedOut()) return;
      out = mapper.fail("not_found", "the run did not appear in the store in time");
    } else if (mayFollow !== undefined && !(await mayFollow(run))) {
      out = mapper.fail("not_found", "the run is not in the store (or it is not yours to see)");
    } else {
      const events = followRunEvents(store, runId, {
        after: options.after ?? 0,
        pollMs,
        signal,
      });
      for await (const event of events) {
        // Checked before mapping, so the cap never splits a start from its end.
        if (sent + MAX_EVENTS_PER_RECORD > maxEvents) {
          out = mapper.fail(
            "stream_limit",
            `this stream reached its cap of ${maxEvents} events; the run goes on`,
          );
          break;
        }
        const pending: Map<string, PendingCallInfo> | undefined =
          event.type === "suspended" ? await pendingCalls(store, runId, event) : undefined;
        for (const agUiEvent of mapper.map(event, pending)) {
          sent++;
          yield agUiEvent;
        }
        if (mapper.ended) return;
      }
      if (out.length > 0) {
        yield* out;
        return;
      }
      if (timedOut()) {
        out = mapper.fail(
          "stream_limit",
          `this stream reached its cap of ${maxMs} ms; the run goes on`,
        );
      } else if (signal.aborted) {
        return;
      } else {
        // The run ended without a final event (recorded before the store kept events).
        out = mapper.fail("ended", "the run ended without a final event to report");
      }
    }
  } catch (error) {
    if (signal.aborted && !timedOut()) return;
    out = failure(error);
  }
  yield* out;
}
