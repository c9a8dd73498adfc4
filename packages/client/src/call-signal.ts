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
