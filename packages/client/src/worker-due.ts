// A worker's part in questions that wait too long: it takes the reminders and escalations that
// came due from the store (`claimDue`, each handed to one worker only) and calls `onDue`.
import { ToolnexusError } from "@toolnexus/core";
import type { ResolvedConfig } from "./config.js";
import { messageOf } from "./errors.js";
import type { WorkOptions, WorkSummary } from "./types.js";

/**
 * Returns `fire(idle)`: takes due timers and calls `onDue` for each, when the worker has an
 * `onDue` and the store a `claimDue`. A busy worker looks at most once per `pollMs`; an idle one
 * each time it is about to wait. Nothing to do without a hook: timers stay for a worker with one.
 */
export function dueFiring(
  config: ResolvedConfig,
  options: WorkOptions,
  summary: WorkSummary,
): (idle: boolean) => Promise<void> {
  const { onDue } = options;
  const store = config.runs;
  if (onDue === undefined || store.claimDue === undefined) return async () => {};
  if (typeof onDue !== "function") throw new TypeError("work: onDue must be a function");
  const now = options.now ?? Date.now;
  const pollMs = options.pollMs ?? 500;
  let last = Number.NEGATIVE_INFINITY;
  return async (idle) => {
    const at = now();
    if (!idle && at - last < pollMs) return;
    last = at;
    let due: Awaited<ReturnType<NonNullable<typeof store.claimDue>>>;
    try {
      due = await store.claimDue!({ now: at, owner: config.owner });
    } catch (thrown) {
      options.onError?.(
        new ToolnexusError("store_failed", `claiming due reminders failed: ${messageOf(thrown)}`, {
          cause: thrown,
        }),
        "",
      );
      return;
    }
    for (const timer of due) {
      summary.due++;
      try {
        await onDue(timer);
      } catch (thrown) {
        // The timer was handed to this worker and counts as fired: never fired twice.
        options.onError?.(thrown, timer.runId);
      }
    }
  };
}
