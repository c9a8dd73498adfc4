// One call's stop conditions in one AbortSignal: the context's signal, the context's timeout
// (enforced here too, so a tool called directly with `{ timeout }` still stops) and the tool's
// own time argument (bash `timeout`, webfetch `timeout`). Whichever is first wins.
import type { ToolContext } from "@toolnexus/core";

export type StopReason = { kind: "timeout"; ms: number } | { kind: "cancelled" };

export class CallLimit {
  readonly #controller = new AbortController();
  #reason: StopReason | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #unlink: (() => void) | undefined;

  /** `ownMs` is the tool's own budget from its arguments, when it has one. */
  constructor(ctx: ToolContext, ownMs?: number) {
    const budgets = [ownMs, ctx.timeout].filter(
      (ms): ms is number => typeof ms === "number" && Number.isFinite(ms) && ms >= 0,
    );
    if (budgets.length > 0) {
      const ms = Math.min(...budgets);
      this.#timer = setTimeout(() => this.#stop({ kind: "timeout", ms }), ms);
    }
    const outer = ctx.signal;
    if (outer !== undefined) {
      const onAbort = () => this.#stop(reasonOf(outer, ctx));
      if (outer.aborted) onAbort();
      else {
        outer.addEventListener("abort", onAbort, { once: true });
        this.#unlink = () => outer.removeEventListener("abort", onAbort);
      }
    }
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get stopped(): boolean {
    return this.#reason !== undefined;
  }

  get reason(): StopReason | undefined {
    return this.#reason;
  }

  /** "timed out after 500ms" or "cancelled". */
  describe(): string {
    const reason = this.#reason;
    if (reason === undefined) return "stopped";
    return reason.kind === "timeout" ? `timed out after ${reason.ms}ms` : "cancelled";
  }

  /** Throws when stopped; use between steps of a long walk. */
  check(): void {
    if (this.#reason !== undefined) throw new StoppedError(this.describe());
  }

  dispose(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#unlink?.();
  }

  #stop(reason: StopReason): void {
    if (this.#reason !== undefined) return;
    this.#reason = reason;
    this.dispose();
    this.#controller.abort(new StoppedError(this.describe()));
  }
}

/**
 * Thrown (and turned into `<tool>: timed out after …`) when a call is stopped. `detail` says
 * what the time ran out on, when the tool knows (grep: the pattern); it follows a timeout.
 */
export class StoppedError extends Error {
  readonly detail: string | undefined;

  constructor(message: string, detail?: string) {
    super(message);
    this.detail = detail;
  }
}

function reasonOf(signal: AbortSignal, ctx: ToolContext): StopReason {
  const reason: unknown = signal.reason;
  const name = typeof reason === "object" && reason !== null ? (reason as Error).name : undefined;
  if (name === "TimeoutError" && typeof ctx.timeout === "number") {
    return { kind: "timeout", ms: ctx.timeout };
  }
  return { kind: "cancelled" };
}

/**
 * Runs one call's body under a {@link CallLimit}: a stop (timeout or cancel) anywhere inside
 * becomes the error result `<tool>: timed out after <ms>ms` / `<tool>: cancelled`.
 */
export async function limited<T extends { output: string; isError: boolean }>(
  name: string,
  ctx: ToolContext,
  ownMs: number | undefined,
  body: (limit: CallLimit) => Promise<T>,
): Promise<T | { output: string; isError: true; metadata: Record<string, unknown> }> {
  const limit = new CallLimit(ctx, ownMs);
  try {
    limit.check();
    const result = await body(limit);
    if (limit.stopped) return stoppedResult(name, limit);
    return result;
  } catch (thrown) {
    if (limit.stopped) return stoppedResult(name, limit, thrown);
    throw thrown;
  } finally {
    limit.dispose();
  }
}

function stoppedResult(name: string, limit: CallLimit, thrown?: unknown) {
  const timedOut = limit.reason?.kind === "timeout";
  const detail = timedOut && thrown instanceof StoppedError ? thrown.detail : undefined;
  return {
    output: `${name}: ${limit.describe()}${detail === undefined ? "" : ` ${detail}`}`,
    isError: true as const,
    metadata: {
      timedOut,
      cancelled: limit.reason?.kind === "cancelled",
    },
  };
}
