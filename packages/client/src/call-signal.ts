import type { Answer, ToolContext } from "@toolnexus/core";

let stop: (ctx: CallContext, reason: unknown) => void;

/**
 * Where a tool may send events into its run's stream (a sub-agent forwards its child's events).
 * Set, not enumerable, only when someone listens to the run.
 */
export const EMIT = Symbol("toolnexus.emit");

/**
 * The ToolContext of one tool call. Its `signal` is an own, enumerable property whose
 * AbortController is made only when something reads it: most tools never look at their signal,
 * and on Node 20 making an AbortSignal costs more than the rest of a tool round trip. Reading
 * `ctx.signal` (directly, by spreading `ctx`, or after the call ended) always gives a real
 * AbortSignal, already aborted with the right reason when the call was stopped before the read.
 */
export class CallContext implements ToolContext {
  /** Contexts of no call, kept for their hidden classes (see the end of this file). */
  static readonly shapes: readonly object[] = [];
  declare sessionId?: string;
  declare agent?: string;
  declare extra?: Record<string, unknown>;
  declare answer?: Answer;
  declare timeout?: number;
  declare signal?: AbortSignal;
  messageId: string;
  callId: string;
  runId: string;
  attempt: number;
  #controller: AbortController | undefined = undefined;
  #stopped: { reason: unknown } | undefined = undefined;

  // One descriptor shared by every context keeps defining the accessor cheap.
  static readonly #signal: PropertyDescriptor = {
    configurable: true,
    enumerable: true,
    get(this: CallContext): AbortSignal {
      if (this.#controller === undefined) {
        this.#controller = new AbortController();
        if (this.#stopped !== undefined) this.#controller.abort(this.#stopped.reason);
      }
      return this.#controller.signal;
    },
    set(this: CallContext, value: AbortSignal | undefined) {
      // Whoever replaces the signal owns it from now on.
      Object.defineProperty(this, "signal", {
        configurable: true,
        enumerable: true,
        writable: true,
        value,
      });
    },
  };

  static {
    stop = (ctx, reason) => {
      if (ctx.#stopped !== undefined) return;
      ctx.#stopped = { reason };
      ctx.#controller?.abort(reason);
    };
  }

  constructor(messageId: string, callId: string, runId: string, attempt: number) {
    this.messageId = messageId;
    this.callId = callId;
    this.runId = runId;
    this.attempt = attempt;
    Object.defineProperty(this, "signal", CallContext.#signal);
  }
}

/** Aborts the call's signal (now, or when it is first read), once, with the first reason. */
export function stopCall(ctx: CallContext, reason: unknown): void {
  stop(ctx, reason);
}

// Like Run.shapes (run-state.ts): a full GC between tool calls that take a context threw away
// its hidden classes, and the compiled code that made and read contexts with them. Contexts of
// no call keep the common ones: bare, and as a run that someone follows fills them (a durable
// run always is: its recorder listens), with a sub-agent's emitter and `progress` (run-state.ts's
// `fill`, in its order), without an answer and with one (what a resumed call is given).
function keptContext(followed: boolean, answer: Answer | undefined): CallContext {
  const ctx = new CallContext("", "", "run_shape", 1);
  if (followed) {
    Object.defineProperty(ctx, EMIT, { value: () => {} });
    (ctx as { progress?: unknown }).progress = () => {};
  }
  if (answer !== undefined) ctx.answer = answer;
  return ctx;
}
(CallContext.shapes as object[]).push(
  keptContext(false, undefined),
  keptContext(false, { id: "", ok: true }),
  keptContext(true, undefined),
  keptContext(true, { id: "", ok: true }),
);
