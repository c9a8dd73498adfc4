// Time helpers for the two clocks: a tool call's budget and the run's own time. A human's
// wait is measured separately and never charged to either.

/** The reason a call's signal aborts with when its budget runs out. */
export function timeoutReason(ms: number): DOMException {
  return new DOMException(`timed out after ${ms}ms`, "TimeoutError");
}

/** The smallest of the defined budgets, or undefined when none is set. Fixed arity: no array per call. */
export function smallest(
  a: number | undefined,
  b: number | undefined,
  c?: number | undefined,
): number | undefined {
  let min = a;
  if (b !== undefined && (min === undefined || b < min)) min = b;
  if (c !== undefined && (min === undefined || c < min)) min = c;
  return min;
}

/**
 * The run's own clock: elapsed time minus the time spent waiting for humans. Overlapping waits
 * (several suspensions of one turn) are counted once.
 */
export class RunClock {
  private readonly limitMs: number | undefined;
  /** Only read when the run has a limit, so only then is the clock read. */
  private readonly started: number;
  private waited = 0;
  private waits = 0;
  private waitStarted = 0;

  constructor(limitMs: number | undefined) {
    this.limitMs = limitMs;
    this.started = limitMs === undefined ? 0 : performance.now();
  }

  /** Milliseconds left of the run's budget, or undefined when the run has none. */
  remaining(): number | undefined {
    if (this.limitMs === undefined) return undefined;
    const now = performance.now();
    const waiting = this.waits > 0 ? now - this.waitStarted : 0;
    return this.limitMs - (now - this.started - this.waited - waiting);
  }

  /** Stop charging the run while a human is asked; call the returned function when done. */
  pause(): () => void {
    if (this.waits++ === 0) this.waitStarted = performance.now();
    let resumed = false;
    return () => {
      if (resumed) return;
      resumed = true;
      if (--this.waits === 0) this.waited += performance.now() - this.waitStarted;
    };
  }
}
