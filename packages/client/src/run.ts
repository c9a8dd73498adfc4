// The turn loop: call the model, run the tools it asks for, repeat; halt for humans or finish.
// The model call is in model-call.ts, one call's life in tool-call.ts, suspensions in suspension.ts,
// durable writes in journal.ts, and continuing a claimed run in continue-run.ts.
import {
  type Answer,
  type AssistantMessage,
  CHECKPOINT_VERSION,
  type Checkpoint,
  callIdOf,
  copyWireData,
  emptyUsage,
  type FinishedResult,
  type JournalEntry,
  type Message,
  type ModelResponse,
  type PendingCall,
  type StopReason,
  type ToolCall,
  type ToolContext,
  type ToolMessage,
  type ToolProgress,
  type Usage,
} from "@toolnexus/core";
import { RunClock } from "./budget.js";
import { rollUp, type Settled } from "./call-outcome.js";
import { CallContext, EMIT } from "./call-signal.js";
import type { ResolvedConfig } from "./config.js";
import { messageOf, RunCancelledError, RunError } from "./errors.js";
import { settleAll } from "./fan-out.js";
import { loopId } from "./ids.js";
import type { RunTrace } from "./instrumentation.js";
import type { Journal } from "./journal.js";
import { callModel } from "./model-call.js";
import type { RunRecorder } from "./run-recorder.js";
import { refuseCall, settleCall } from "./tool-call.js";
import type { DoneResult, RunEvent, RunResult, ToolCallRecord } from "./types.js";

/** The fields every RunResult has, whatever its status. */
type SharedResultFields = Omit<DoneResult, "status">;

/** The state a run starts from: fresh, or restored from a checkpoint. */
export interface RunStart {
  runId: string;
  sessionId: string | undefined;
  messages: Message[];
  turns: number;
  usage: Usage;
  runExtra: Record<string, unknown> | undefined;
  conversation: boolean;
  /** ISO time the run started; a fresh run reads its clock only when it is checkpointed. */
  createdAt?: string;
  /** Why the model stopped on the last turn of `messages`, when a checkpoint recorded it. */
  stopReason?: StopReason;
  finishReason?: string;
}

/**
 * One run of the loop, from a prompt or from a checkpoint. It owns the transcript and appends
 * to it (never copies it), so a turn's cost does not grow with the conversation. Its fields are
 * shared with the modules that handle one call's life and suspensions.
 */
export class Run {
  readonly runId: string;
  readonly sessionId: string | undefined;
  readonly messages: Message[];
  turns: number;
  usage: Usage;
  readonly runExtra: Record<string, unknown> | undefined;
  readonly extra: Record<string, unknown> | undefined;
  readonly conversation: boolean;
  readonly records: ToolCallRecord[] = [];
  readonly clock: RunClock;
  /** Set when a call was stopped by the run's own deadline (timers may fire a hair early). */
  outOfTime = false;
  /** Whether anyone receives events; when nobody does, the loop does not build them. */
  listening: boolean;
  /** A durable run's events for followers (a store with `appendEvents`); else undefined. */
  recorder: RunRecorder | undefined;
  /** Aborts when the caller cancels, or (durable runs) when the lease is lost. */
  signal: AbortSignal | undefined;
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
  /** Ids (`callIdOf`) of the run's calls in `messages[0, scannedTo)`; made at a second turn. */
  private callIds: Set<string> | undefined;
  /** Where this run's own messages start, then how far `callIds` has read. */
  private scannedTo: number;

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
    this.signal = signal;
  }

  /** Makes the run durable: its writes go through `journal`, and a lost lease stops it. */
  attach(journal: Journal): void {
    this.journal = journal;
    // Only durable runs record events: a run in memory builds none.
    if (journal.recorder !== undefined) {
      this.recorder = journal.recorder;
      this.listening = true;
    }
    this.signal =
      this.signal === undefined ? journal.signal : AbortSignal.any([this.signal, journal.signal]);
  }

  emit(event: RunEvent): void {
    this.config.emit(event);
    this.sink?.(event);
    this.recorder?.take(event);
  }

  /** What a stopped run rejects with: the lease was lost, or the caller cancelled. */
  cancelled(): RunError {
    const lost = this.journal?.lost;
    if (lost !== undefined) {
      return new RunError("lease_lost", lost.message, this.messages, this.runId, lost);
    }
    const cancel = this.journal?.cancel;
    return new RunCancelledError(this.messages, this.runId, this.signal?.reason, cancel);
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
  fill<T extends ToolContext>(ctx: T, answer: Answer | undefined, state?: unknown): T {
    // A sub-agent's events reach this run's listeners through its context.
    if (this.listening && ctx instanceof CallContext) {
      Object.defineProperty(ctx, EMIT, { value: (event: RunEvent) => this.emit(event) });
      const { callId } = ctx;
      ctx.progress = (update) => this.progress(callId, update);
    }
    if (this.trace !== undefined) {
      const trace = this.trace;
      const { callId } = ctx;
      // The tool's own span when the instrumentation has one, else the run's.
      ctx.traceCarrier = () =>
        (callId === undefined ? undefined : trace.toolCarrier?.(callId)) ?? trace.carrier();
    }
    if (this.sessionId !== undefined) ctx.sessionId = this.sessionId;
    if (this.config.agent !== undefined) ctx.agent = this.config.agent;
    if (this.extra !== undefined) ctx.extra = this.extra;
    if (answer !== undefined) ctx.answer = answer;
    if (state !== undefined) ctx.resumeState = state;
    return ctx;
  }

  /** A tool's progress report (`ctx.progress`) as a `progress` event; malformed ones are dropped. */
  private progress(callId: string, update: ToolProgress): void {
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
    this.createdAt ??= new Date(this.startedMs).toISOString();
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
    const carrier = this.trace?.carrier();
    if (carrier !== undefined) checkpoint.trace = carrier;
    if (this.stopReason !== undefined) checkpoint.stopReason = this.stopReason;
    if (this.finishReason !== undefined) checkpoint.finishReason = this.finishReason;
    return checkpoint;
  }

  /** The loop: call the model, run the tools it asks for, repeat. */
  async loop(): Promise<RunResult> {
    const { maxTurns } = this.config;
    for (;;) {
      if (this.turns >= maxTurns) return this.finish({ status: "incomplete", limit: "maxTurns" });
      const left = this.clock.remaining();
      if (this.outOfTime || (left !== undefined && left <= 0)) {
        return this.finish({ status: "incomplete", limit: "timeout" });
      }
      this.recorder?.beginTurn(this.turns + 1);
      const response = await callModel(this);
      if (response === "timeout") return this.finish({ status: "incomplete", limit: "timeout" });
      this.turns++;
      const assistant = this.appendAssistant(response);
      if (assistant.toolCalls === undefined) return this.finish({ status: "done" });
      // A durable run writes the turn before its calls start, so a worker that takes it over
      // knows which calls were in flight.
      if (this.journal !== undefined) await this.journal.step(this.checkpoint([]));
      const halted = await this.settleTurn(assistant, undefined);
      if (halted !== undefined) return this.halt(halted);
    }
  }

  /**
   * Runs the calls of a turn (skipping those already journaled), then appends their tool
   * messages in call order. Returns the calls that halted, if any.
   */
  async settleTurn(
    assistant: AssistantMessage,
    journaled: ReadonlyMap<string, JournalEntry> | undefined,
  ): Promise<PendingCall[] | undefined> {
    const calls = assistant.toolCalls!;
    const { maxConcurrentTools, maxToolCallsPerTurn } = this.config;
    const asked = calls.length;
    let settled: Settled[];
    if (this.journal === undefined) {
      settled =
        asked === 1
          ? [await settleCall(this, calls[0]!, assistant.id)]
          : await settleAll(asked, maxConcurrentTools, (i) =>
              i < maxToolCallsPerTurn
                ? settleCall(this, calls[i]!, assistant.id)
                : refuseCall(this, calls[i]!, assistant.id, asked),
            );
    } else {
      settled = await settleAll(asked, maxConcurrentTools, (i) => {
        const call = calls[i]!;
        const done = journaled?.get(call.id);
        if (done !== undefined) return this.replay(done);
        return this.settleJournaled(
          call,
          assistant.id,
          undefined,
          i < maxToolCallsPerTurn ? 0 : asked,
        );
      });
    }
    let halted: PendingCall[] | undefined;
    for (const outcome of settled) {
      const slot = this.messages.push(outcome.message) - 1;
      if (outcome.pending === undefined) continue;
      halted ??= [];
      halted.push({ ...outcome.pending, slot });
    }
    return halted;
  }

  /** A durable run's call: run it, then journal its outcome before the run moves on. */
  async settleJournaled(
    call: ToolCall,
    messageId: string,
    answered?: string,
    refusedOf = 0,
  ): Promise<Settled> {
    const settled = await (refusedOf > 0
      ? refuseCall(this, call, messageId, refusedOf)
      : settleCall(this, call, messageId));
    await this.journalCall(call.id, settled, answered);
    return settled;
  }

  journalCall(callId: string, settled: Settled, answered: string | undefined): Promise<void> {
    const entry: JournalEntry = {
      callId,
      message: settled.message,
      record: settled.record ?? fallbackRecord(callId, settled.message),
    };
    if (settled.pending !== undefined) entry.pending = settled.pending;
    if (answered !== undefined) entry.answered = answered;
    return this.journal!.entry(entry);
  }

  /** A call whose outcome was journaled by an earlier worker: reuse it, never run it again. */
  replay(entry: JournalEntry): Settled {
    this.records.push(entry.record);
    // The step this run continues from was written before the call finished: a sub-agent's
    // tokens are not in its usage yet.
    if (this.config.tools.get(entry.record.name)?.source === "agent")
      rollUp(this, entry.record.result);
    const settled: Settled = { message: entry.message, record: entry.record };
    if (entry.pending !== undefined) settled.pending = entry.pending;
    return settled;
  }

  private appendAssistant(response: ModelResponse): AssistantMessage {
    const assistant: AssistantMessage = {
      role: "assistant",
      id: response.id || loopId("msg"),
      content: response.text,
    };
    // Data the adapter needs back next turn (thinking blocks…); kept in checkpoints as JSON.
    if (response.providerData !== undefined) assistant.providerData = response.providerData;
    this.stopReason = response.stopReason;
    this.finishReason = response.finishReason;
    const calls = response.toolCalls;
    if (calls.length > 0) {
      // A turn asks for a handful of calls: looking back over the earlier ones is cheaper
      // than a Set until there are dozens.
      const ids = calls.length > 32 ? new Set<string>() : undefined;
      const toolCalls: ToolCall[] = [];
      for (const call of calls) {
        // The model's id when it gave a usable one; otherwise one unique within the run.
        const taken =
          call.id === "" ||
          (ids === undefined
            ? toolCalls.some((earlier) => earlier.id === call.id)
            : ids.has(call.id));
        const kept = taken ? { ...call, id: loopId("call") } : call;
        ids?.add(kept.id);
        toolCalls.push(kept);
      }
      this.uniqueAcrossTurns(toolCalls);
      assistant.toolCalls = toolCalls;
    }
    this.messages.push(assistant);
    if (this.listening) this.emit({ type: "message", message: assistant, turn: this.turns });
    return assistant;
  }

  /**
   * Gives a call whose id an earlier turn of the run already used a `runCallId`, derived from
   * the turn and its position, so `runId` + `ctx.callId` never repeats within a run. It is in
   * the transcript (and so in every checkpoint) before the call runs: a re-execution after a
   * takeover or an answer sees the same id.
   */
  private uniqueAcrossTurns(toolCalls: ToolCall[]): void {
    const { messages } = this;
    // A run's first turn has nothing to compare with: no Set is made.
    if (this.callIds === undefined && !hasCalls(messages, this.scannedTo)) {
      this.scannedTo = messages.length;
      return;
    }
    this.callIds ??= new Set();
    const earlier = this.callIds;
    for (; this.scannedTo < messages.length; this.scannedTo++) {
      const message = messages[this.scannedTo]!;
      if (message.role !== "assistant" || message.toolCalls === undefined) continue;
      for (const call of message.toolCalls) earlier.add(callIdOf(call));
    }
    for (let i = 0; i < toolCalls.length; i++) {
      const call = toolCalls[i]!;
      if (!earlier.has(call.id)) continue;
      let runCallId = `${call.id}@${this.turns}.${i}`;
      // Only a provider sending such ids on purpose can make this collide; stay unique anyway.
      for (let n = 2; earlier.has(runCallId) || toolCalls.some((c) => c.id === runCallId); n++) {
        runCallId = `${call.id}@${this.turns}.${i}.${n}`;
      }
      toolCalls[i] = { ...call, runCallId };
    }
  }

  /** Save a checkpoint, then report the halt. */
  async halt(calls: PendingCall[]): Promise<RunResult> {
    const checkpoint = this.checkpoint(calls);
    const state =
      this.journal !== undefined
        ? await this.journal.halt(checkpoint)
        : await this.storeWrite("save the checkpoint of", () => this.config.runs.halt(checkpoint));
    // Cancelled while it worked: nobody is asked anything.
    if (this.journal?.cancel !== undefined) throw this.cancelled();
    if (state === "ready") this.readyAfterHalt = true;
    const pendings = calls.map((call) => call.request);
    const first = pendings[0]!;
    const result: RunResult = this.withBase(
      { status: "pending", pending: first, pendings },
      first.prompt,
    );
    if (this.listening) this.emit({ type: "done", result });
    return result;
  }

  private async storeWrite<T>(what: string, write: () => T | Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (thrown) {
      throw new RunError(
        "store_failed",
        `could not ${what} run ${this.runId}: ${messageOf(thrown)}`,
        this.messages,
        this.runId,
        thrown,
      );
    }
  }

  /**
   * Completes a result by assigning the fields every status shares. Assigned, not spread: on
   * Node 20 `{ ...end, ...base }` takes V8's slow path and cost more than the rest of a run.
   */
  private withBase<T extends object>(head: T, text: string): T & SharedResultFields {
    const result = head as T & SharedResultFields;
    result.text = text;
    result.messages = this.messages;
    result.toolCalls = this.records;
    result.turns = this.turns;
    result.usage = this.usage;
    result.model = this.config.model.id;
    result.runId = this.runId;
    result.sessionId = this.sessionId;
    return result;
  }

  finish(
    end: { status: "done" } | { status: "incomplete"; limit: "maxTurns" | "timeout" },
  ): RunResult | Promise<RunResult> {
    let text = "";
    for (let i = this.messages.length - 1; i >= 0; i--) {
      const message = this.messages[i]!;
      if (message.role === "assistant") {
        text = message.content;
        break;
      }
    }
    const result = this.withBase(
      end.status === "done" ? this.doneHead() : { status: "incomplete", limit: end.limit },
      text,
    ) as FinishedResult;
    if ((this.conversation && this.sessionId !== undefined) || this.journal !== undefined) {
      return this.saveThenEnd(result);
    }
    if (this.listening) this.emit({ type: "done", result });
    return result;
  }

  /** A done result's own fields: why the model stopped, when it said. */
  private doneHead(): Pick<DoneResult, "status" | "stopReason" | "finishReason"> {
    const head: Pick<DoneResult, "status" | "stopReason" | "finishReason"> = { status: "done" };
    if (this.stopReason !== undefined) head.stopReason = this.stopReason;
    if (this.finishReason !== undefined) head.finishReason = this.finishReason;
    return head;
  }

  /** `ask` saves the session's transcript, a durable run its result, before reporting the end. */
  private async saveThenEnd(result: FinishedResult): Promise<RunResult> {
    const { sessionId } = this;
    if (this.conversation && sessionId !== undefined) {
      // A durable conversation writes its final turn first, so a takeover does not ask the
      // model again for an answer the conversation may already hold.
      if (this.journal !== undefined && result.status === "done")
        await this.journal.step(this.checkpoint([]));
      try {
        await this.config.conversations.save(sessionId, this.messages);
      } catch (thrown) {
        throw new RunError(
          "store_failed",
          `could not save the conversation of session ${sessionId}: ${messageOf(thrown)}`,
          this.messages,
          this.runId,
          thrown,
        );
      }
    }
    if (this.journal !== undefined) await this.journal.finish({ state: "done", result });
    if (this.listening) this.emit({ type: "done", result });
    return result;
  }
}

/** True when `messages` from `from` on hold an assistant turn with tool calls. */
function hasCalls(messages: readonly Message[], from: number): boolean {
  for (let i = from; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === "assistant" && message.toolCalls !== undefined) return true;
  }
  return false;
}

/** A record for a journal entry whose call left none (it cannot happen today; kept total). */
function fallbackRecord(callId: string, message: ToolMessage): ToolCallRecord {
  return {
    id: callId,
    name: message.name,
    args: {},
    result: { output: message.content, isError: message.isError },
    status: message.isError ? "error" : "ok",
    timedOut: false,
    durationMs: 0,
  };
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
    runId: runId ?? loopId("run"),
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
    ...(checkpoint.stopReason === undefined ? {} : { stopReason: checkpoint.stopReason }),
    ...(checkpoint.finishReason === undefined ? {} : { finishReason: checkpoint.finishReason }),
  };
}
