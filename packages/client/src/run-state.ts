// A run's state: its transcript, turns, usage, records, clock, signal and (durable) journal, and
// the small things every layer above asks of it: emit an event, the error a stopped run
// rejects with, a call's context, a checkpoint. It calls nothing above it; the turn loop
// (turn-loop.ts), one call's life (tool-call.ts) and the model call (model-call.ts) act on it.

import {
  type Answer,
  CHECKPOINT_VERSION,
  type Checkpoint,
  callIdOf,
  copyWireData,
  emptyUsage,
  isoTime,
  MAX_POLICY_DECISIONS,
  type Message,
  type PendingCall,
  type PolicyDecisionRecord,
  randomId,
  type StopReason,
  type ToolCall,
  type ToolContext,
  type ToolProgress,
  type Usage,
} from "@toolnexus/core";
import { RunClock } from "./budget.js";
import { CallContext, EMIT } from "./call-signal.js";
import type { ResolvedConfig } from "./config.js";
import { detached } from "./detached-event.js";
import { RunCancelledError, RunError } from "./errors.js";
import type { RunTrace } from "./instrumentation.js";
import type { Journal } from "./journal.js";
import type { RunRecorder } from "./run-recorder.js";
import type { RunEvent, ToolCallRecord } from "./types.js";

const noop = () => {};

/** The state a run starts from: fresh, or restored from a checkpoint. */
export interface RunStart {
  runId: string;
  sessionId: string | undefined;
  messages: Message[];
  turns: number;
  usage: Usage;
  runExtra: Record<string, unknown> | undefined;
  conversation: boolean;
  /** Who started the run (`RunOptions.requester`), kept in its checkpoint. */
  requester?: string;
  /** The policies' decisions so far (a restored run's, from its checkpoint). */
  decisions?: PolicyDecisionRecord[];
  /** ISO time the run started; a fresh run reads its clock only when it is checkpointed. */
  createdAt?: string;
  /** Why the model stopped on the last turn of `messages`, when a checkpoint recorded it. */
  stopReason?: StopReason;
  finishReason?: string;
}

/**
 * One run of the loop, from a prompt or from a checkpoint. It owns the transcript and appends
 * to it (never copies it), so a turn's cost does not grow with the conversation. Its fields are
 * shared with the modules that run the loop, one call's life and suspensions.
 */
export class Run {
  /**
   * Objects with the hidden classes of a run and its transcript, kept for the life of the
   * process (a static field, so V8 cannot let them die with the module's start-up). See the
   * end of this file.
   */
  static readonly shapes: readonly object[] = [];
  readonly runId: string;
  readonly sessionId: string | undefined;
  /** Appended to, never copied; replaced whole (never edited) only by compaction. */
  messages: Message[];
  turns: number;
  usage: Usage;
  readonly runExtra: Record<string, unknown> | undefined;
  readonly extra: Record<string, unknown> | undefined;
  readonly conversation: boolean;
  /** Who started the run: approval policies see it, and it may not approve its own calls. */
  readonly requester: string | undefined;
  /** The approval policies' decisions on this run's calls, kept in its checkpoint. */
  readonly decisions: PolicyDecisionRecord[];
  readonly records: ToolCallRecord[] = [];
  readonly clock: RunClock;
  /** Set when a call was stopped by the run's own deadline (timers may fire a hair early). */
  outOfTime = false;
  /** Whether anyone receives events; when nobody does, the loop does not build them. */
  listening: boolean;
  /** A durable run's events for followers (a store with `appendEvents`); else undefined. */
  recorder: RunRecorder | undefined;
  /**
   * The caller's signal; under a lease with a caller's signal, that one and the lease's
   * combined. A durable run without one reads its journal's, made only when asked for.
   */
  private ownSignal: AbortSignal | undefined;
  /** Present when the run is durable: every step is written through it. */
  journal: Journal | undefined;
  /** Executions of calls run again after a takeover or an answer (call id -> attempt). */
  attempts: Map<string, number> | undefined;
  /** This run's tracing, when the client has an instrumentation. */
  trace: RunTrace | undefined;
  /** Set when a halt found answers already recorded: the run can continue at once. */
  readyAfterHalt = false;
  /** Why the model stopped on its last turn (normalized, and as the provider sent it). */
  stopReason: StopReason | undefined;
  finishReason: string | undefined;
  private createdAt: string | undefined;
  private readonly startedMs: number;
  /**
   * Ids (`callIdOf`) of the run's calls in `messages[0, scannedTo)`; made at a second turn.
   * Kept up to date by assistant-turn.ts only.
   */
  callIds: Set<string> | undefined;
  /** Where this run's own messages start, then how far `callIds` has read. */
  scannedTo: number;

  constructor(
    readonly config: ResolvedConfig,
    start: RunStart,
    signal: AbortSignal | undefined,
    private readonly sink: ((event: RunEvent) => void) | undefined,
    readonly streaming: boolean,
  ) {
    this.runId = start.runId;
    this.sessionId = start.sessionId;
    this.messages = start.messages;
    this.turns = start.turns;
    this.usage = start.usage;
    this.runExtra = start.runExtra;
    this.conversation = start.conversation;
    this.requester = start.requester;
    this.decisions = start.decisions ?? [];
    this.createdAt = start.createdAt;
    this.stopReason = start.stopReason;
    this.finishReason = start.finishReason;
    this.startedMs = start.createdAt === undefined ? Date.now() : 0;
    // A fresh run's history holds other runs' calls; a restored run cannot tell them apart
    // from its own and counts them all (ids only need to be unique, not minimal).
    this.scannedTo = start.createdAt === undefined ? start.messages.length : 0;
    this.extra =
      config.extra === undefined
        ? start.runExtra
        : start.runExtra === undefined
          ? config.extra
          : { ...config.extra, ...start.runExtra };
    this.clock = new RunClock(config.timeoutMs);
    this.listening = config.listens || sink !== undefined;
    this.ownSignal = signal;
  }

  /** Aborts when the caller cancels, or (durable runs) when the lease is lost. */
  get signal(): AbortSignal | undefined {
    return this.ownSignal ?? this.journal?.signal;
  }

  /** Whether anything can stop the run (a caller's signal, a lease): `signal` is then defined. */
  get stoppable(): boolean {
    return this.ownSignal !== undefined || this.journal !== undefined;
  }

  /** `signal?.aborted`, without making a durable run's signal. */
  get aborted(): boolean {
    return this.ownSignal === undefined ? this.journal?.aborted === true : this.ownSignal.aborted;
  }

  /**
   * Calls `listener` with the abort reason when the run is stopped (once), like an abort
   * listener on `signal` but without making a durable run's signal; returns what removes it.
   */
  onStop(listener: (reason: unknown) => void): () => void {
    const own = this.ownSignal;
    if (own === undefined) return this.journal?.onStop(listener) ?? noop;
    const onAbort = () => listener(own.reason);
    own.addEventListener("abort", onAbort, { once: true });
    return () => own.removeEventListener("abort", onAbort);
  }

  /** Makes the run durable: its writes go through `journal`, and a lost lease stops it. */
  attach(journal: Journal): void {
    this.journal = journal;
    // Only durable runs record events: a run in memory builds none.
    if (journal.recorder !== undefined) {
      this.recorder = journal.recorder;
      this.listening = true;
    }
    // Without a caller's signal the journal's stands alone (and is made only when read).
    if (this.ownSignal !== undefined) {
      this.ownSignal = AbortSignal.any([this.ownSignal, journal.signal]);
    }
  }

  emit(event: RunEvent): void {
    // Listeners get their own copies (detached-event.ts); the recorder reads the run's own.
    if (this.config.listens || this.sink !== undefined) {
      const theirs = detached(event);
      this.config.emit(theirs);
      this.sink?.(theirs);
    }
    this.recorder?.take(event);
  }

  /** What a stopped run rejects with: the lease was lost, or the caller cancelled. */
  cancelled(): RunError {
    const lost = this.journal?.lost;
    if (lost !== undefined) {
      return new RunError("lease_lost", lost.message, this.messages, this.runId, lost);
    }
    const cancel = this.journal?.cancel;
    const reason = this.ownSignal === undefined ? this.journal?.reason : this.ownSignal.reason;
    return new RunCancelledError(this.messages, this.runId, reason, cancel);
  }

  /** True for the errors that mean "stop this run now", which nothing may turn into a result. */
  isStop(thrown: unknown): boolean {
    return (
      thrown instanceof RunCancelledError ||
      (thrown instanceof RunError && thrown.code === "lease_lost")
    );
  }

  attemptOf(call: ToolCall): number {
    return this.attempts === undefined ? 1 : (this.attempts.get(callIdOf(call)) ?? 1);
  }

  /** The context of one call, without its budget (set per attempt). */
  context(call: ToolCall, messageId: string, answer?: Answer): ToolContext {
    return this.fill(
      { messageId, callId: callIdOf(call), runId: this.runId, attempt: this.attemptOf(call) },
      answer,
    );
  }

  /** Fills in the fields a call's context gets from the run. */
  fill<T extends ToolContext>(
    ctx: T,
    answer: Answer | undefined,
    state?: unknown,
    answeredBy?: string,
  ): T {
    // A sub-agent's events reach this run's listeners through its context.
    if (this.listening && ctx instanceof CallContext) {
      Object.defineProperty(ctx, EMIT, { value: emitterOf(this) });
      ctx.progress = progressOf(this, ctx.callId);
    }
    if (this.trace !== undefined) ctx.traceCarrier = carrierOf(this.trace, ctx.callId);
    if (this.sessionId !== undefined) ctx.sessionId = this.sessionId;
    if (this.config.agent !== undefined) ctx.agent = this.config.agent;
    if (this.extra !== undefined) ctx.extra = this.extra;
    if (answer !== undefined) ctx.answer = answer;
    if (answer !== undefined && answeredBy !== undefined) ctx.answeredBy = answeredBy;
    if (this.requester !== undefined) ctx.requester = this.requester;
    if (state !== undefined) ctx.resumeState = state;
    return ctx;
  }

  /** A tool's progress report (`ctx.progress`) as a `progress` event; malformed ones are dropped. */
  progress(callId: string, update: ToolProgress): void {
    if (typeof update?.progress !== "number" || !Number.isFinite(update.progress)) return;
    const event: Extract<RunEvent, { type: "progress" }> = {
      type: "progress",
      callId,
      progress: update.progress,
    };
    if (typeof update.total === "number" && Number.isFinite(update.total))
      event.total = update.total;
    if (typeof update.message === "string") event.message = update.message;
    this.emit(event);
  }

  /** The run's state as a checkpoint, halted on `pending` (or between steps when empty). */
  checkpoint(pending: PendingCall[]): Checkpoint {
    this.createdAt ??= isoTime(this.startedMs);
    const checkpoint: Checkpoint = {
      version: CHECKPOINT_VERSION,
      runId: this.runId,
      createdAt: this.createdAt,
      messages: this.messages,
      pending,
      turns: this.turns,
      usage: this.usage,
      leaseToken: this.journal?.lease.token ?? 0,
    };
    if (this.sessionId !== undefined) checkpoint.sessionId = this.sessionId;
    if (this.config.agent !== undefined) checkpoint.agent = this.config.agent;
    if (this.runExtra !== undefined) {
      // Kept when it is plain JSON (a copy, read once); a handle or a function is left out.
      const copied = copyWireData(this.runExtra, "extra");
      if ("value" in copied) checkpoint.extra = copied.value as Record<string, unknown>;
    }
    if (this.conversation) checkpoint.conversation = true;
    if (this.requester !== undefined) checkpoint.requester = this.requester;
    if (this.decisions.length > 0) {
      checkpoint.decisions = this.decisions.slice(-MAX_POLICY_DECISIONS);
    }
    const carrier = this.trace?.carrier();
    if (carrier !== undefined) checkpoint.trace = carrier;
    if (this.stopReason !== undefined) checkpoint.stopReason = this.stopReason;
    if (this.finishReason !== undefined) checkpoint.finishReason = this.finishReason;
    return checkpoint;
  }
}

// The functions a call's context gets from its run are made by these small functions, not
// inside the run's methods. With a closure made inside `fill` kept on the context, the run (and
// through it its store and client) survived V8's young-generation GCs until the next full GC: a
// fifth of what a durable cycle allocates was copied and promoted on every scavenge (measured
// with --trace-gc-nvp and the sampling heap profiler; made here, it is not).

/** `ctx[EMIT]`: a sub-agent's events, sent on to this run's listeners. */
function emitterOf(run: Run): (event: RunEvent) => void {
  return (event) => run.emit(event);
}

/** `ctx.progress` of one call. */
function progressOf(run: Run, callId: string): (update: ToolProgress) => void {
  return (update) => run.progress(callId, update);
}

/** `ctx.traceCarrier`: the tool's own span when the instrumentation has one, else the run's. */
function carrierOf(
  trace: RunTrace,
  callId: string | undefined,
): () => Record<string, string> | undefined {
  return () => (callId === undefined ? undefined : trace.toolCarrier?.(callId)) ?? trace.carrier();
}

/** A fresh run's starting state. */
export function freshStart(
  sessionId: string | undefined,
  messages: Message[],
  runExtra: Record<string, unknown> | undefined,
  conversation: boolean,
  runId?: string,
): RunStart {
  return {
    runId: runId ?? randomId("run"),
    sessionId,
    messages,
    turns: 0,
    usage: emptyUsage(),
    runExtra,
    conversation,
  };
}

/** The starting state of a run restored from a checkpoint. */
export function restoredStart(checkpoint: Checkpoint): RunStart {
  return {
    runId: checkpoint.runId,
    sessionId: checkpoint.sessionId,
    messages: checkpoint.messages,
    turns: checkpoint.turns,
    usage: checkpoint.usage,
    runExtra: checkpoint.extra,
    conversation: checkpoint.conversation === true,
    createdAt: checkpoint.createdAt,
    ...(typeof checkpoint.requester === "string" ? { requester: checkpoint.requester } : {}),
    ...(Array.isArray(checkpoint.decisions) ? { decisions: [...checkpoint.decisions] } : {}),
    ...(checkpoint.stopReason === undefined ? {} : { stopReason: checkpoint.stopReason }),
    ...(checkpoint.finishReason === undefined ? {} : { finishReason: checkpoint.finishReason }),
  };
}

// V8 drops a hidden class that no live object has at a full GC, and with it the optimized code
// that uses it. A full GC that fell between runs (no run, no transcript alive) threw away the
// loop's compiled functions, and the next runs were slow until they were compiled again:
// `node --trace-deopt` showed about ten functions per GC ("weak objects"), and a forced GC
// before each block of one-call runs doubled their time. Hidden classes are shared by shape,
// so one never-run Run and one message of each common shape (same keys, same order, as the
// loop and core make them) keep them. They hold empty strings and no client.
(Run.shapes as object[]).push(
  new Run(
    // The constructor reads only these of a configuration.
    { extra: undefined, timeoutMs: undefined, listens: false } as unknown as ResolvedConfig,
    freshStart(undefined, [], undefined, false, "run_shape"),
    undefined,
    undefined,
    false,
  ),
  { role: "system", content: "" },
  { role: "user", content: "" },
  { role: "assistant", id: "", content: "" },
  {
    role: "assistant",
    id: "",
    content: "",
    toolCalls: [{ id: "", name: "", args: {}, rawArgs: "" }],
  },
  { role: "tool", callId: "", name: "", content: "", isError: false },
);
