import type { ToolContext } from "@toolnexus/core";

/**
 * Gives `ctx` its `signal` as an own, enumerable property whose AbortController is made only
 * when something reads it. Most tools never look at their signal, and on Node 20 making an
 * AbortController and its signal costs more than the rest of a tool round trip. Reading
 * `ctx.signal` (directly, by spreading `ctx`, or after the call ended) always gives a real
 * AbortSignal, already aborted with the right reason when the call was stopped before the read.
 *
 * Returns the function that aborts the call.
 */
export function attachSignal(ctx: ToolContext): (reason: unknown) => void {
  let controller: AbortController | undefined;
  let stopped: { reason: unknown } | undefined;
  Object.defineProperty(ctx, "signal", {
    configurable: true,
    enumerable: true,
    get(): AbortSignal {
      if (controller === undefined) {
        controller = new AbortController();
        if (stopped !== undefined) controller.abort(stopped.reason);
      }
      return controller.signal;
    },
    set(value: AbortSignal | undefined) {
      // Whoever replaces the signal owns it from now on.
      Object.defineProperty(ctx, "signal", {
        configurable: true,
        enumerable: true,
        writable: true,
        value,
      });
    },
  });
  return (reason) => {
    if (stopped !== undefined) return;
    stopped = { reason };
    controller?.abort(reason);
  };
}
