// One tools/call in flight: its clocks and what a push-style question asked of it.
import type { ToolContext } from "@toolnexus/core";
import type { Elicitation, ElicitResult } from "./mapping.js";

/** Races `work` against `ms` and `signal`; the loser is left to settle on its own. */
export function bounded<T>(
  work: Promise<T>,
  ms: number,
  what: string,
  signal?: AbortSignal,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms}ms`)), ms);
    const onAbort = () => reject(signal?.reason ?? new Error("aborted"));
    signal?.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    });
  });
}

/** True when a call's signal was aborted by a time budget (the client's `TimeoutError` reason). */
export function isTimeout(signal: AbortSignal | undefined): boolean {
  const reason = signal?.aborted ? (signal.reason as { name?: unknown } | undefined) : undefined;
  return reason?.name === "TimeoutError";
}

/**
 * One tools/call in flight: its clocks (an idle limit reset by progress, under a hard limit),
 * paused while a human answers, and what a push-style question asked of it.
 */
export class CallState {
  readonly controller = new AbortController();
  readonly signal: AbortSignal;
  timedOut: string | undefined;
  /** Set when a push-style question must halt the call (no `waitFor`). */
  suspendWith: Elicitation | undefined;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private hardTimer: ReturnType<typeof setTimeout> | undefined;
  private hardLeft: number;
  private hardStarted = 0;
  private paused = 0;

  constructor(
    readonly ctx: ToolContext | undefined,
    readonly toolName: string,
    readonly args: Record<string, unknown>,
    private readonly idleMs: number,
    hardMs: number,
    /** Answers for a replayed push-style call, in the order the server asks. */
    readonly replay: { key: string; result: ElicitResult }[],
  ) {
    this.hardLeft = hardMs;
    this.signal =
      ctx?.signal === undefined
        ? this.controller.signal
        : AbortSignal.any([ctx.signal, this.controller.signal]);
    this.startHard();
    this.resetIdle();
  }

  private startHard(): void {
    if (!Number.isFinite(this.hardLeft)) return;
    this.hardStarted = Date.now();
    this.hardTimer = setTimeout(
      () => this.stop(`timed out after ${Math.round(this.hardLeft)}ms`),
      this.hardLeft,
    );
  }

  /** Progress (or the start): the idle limit starts again, within the hard limit. */
  resetIdle(): void {
    if (this.paused > 0) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(
      () => this.stop(`timed out after ${this.idleMs}ms without a result or progress`),
      this.idleMs,
    );
  }

  /** A human is being asked: neither clock runs until `resume`. */
  pause(): () => void {
    if (this.paused++ === 0) {
      clearTimeout(this.idleTimer);
      clearTimeout(this.hardTimer);
      if (Number.isFinite(this.hardLeft)) this.hardLeft -= Date.now() - this.hardStarted;
    }
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--this.paused === 0 && !this.controller.signal.aborted) {
        this.startHard();
        this.resetIdle();
      }
    };
  }

  stop(why: string): void {
    if (this.controller.signal.aborted) return;
    this.timedOut = why;
    this.controller.abort(new DOMException(why, "TimeoutError"));
  }

  /** Halts the call for a push-style question nobody can answer now. */
  halt(elicitation: Elicitation): void {
    this.suspendWith = elicitation;
    this.controller.abort(new DOMException("the call halts for a question", "AbortError"));
  }

  end(): void {
    clearTimeout(this.idleTimer);
    clearTimeout(this.hardTimer);
  }
}
