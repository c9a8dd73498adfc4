// A worker: continues runs from the store (answered, expired, given back, or taken over from a
// worker that died) until its signal aborts.
import { type ClaimedRun, ToolnexusError } from "@toolnexus/core";
import type { ResolvedConfig } from "./config.js";
import { continueClaimed } from "./durable.js";
import { RunCancelledError } from "./errors.js";
import type { WorkOptions, WorkSummary } from "./types.js";
import { dueFiring } from "./worker-due.js";

function whole(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new TypeError(`work: ${name} must be a whole number of at least 1, got ${String(value)}`);
  }
  return value;
}

export async function work(config: ResolvedConfig, options: WorkOptions): Promise<WorkSummary> {
  const signal = options?.signal;
  if (!(signal instanceof AbortSignal)) {
    throw new TypeError("work: pass { signal } (an AbortSignal) to say when the worker stops");
  }
  const concurrency = whole("concurrency", options.concurrency, 4);
  const pollMs = whole("pollMs", options.pollMs, 500);
  const maxFailures = whole("maxFailures", options.maxFailures, 5);
  const store = config.runs;
  const summary: WorkSummary = {
    claimed: 0,
    finished: 0,
    halted: 0,
    errors: 0,
    failed: 0,
    cancelled: 0,
    due: 0,
  };
  const active = new Set<Promise<void>>();
  const fireDue = dueFiring(config, options, summary);

  let wake: (() => void) | undefined;
  // A poke while the worker is busy claiming is kept, so the next wait returns at once.
  let poked = false;
  const poke = () => {
    const resolve = wake;
    wake = undefined;
    if (resolve === undefined) poked = true;
    else resolve();
  };
  const unsubscribe = store.subscribe?.(poke);
  signal.addEventListener("abort", poke, { once: true });

  const handle = async (claimed: ClaimedRun): Promise<void> => {
    const { runId } = claimed.lease;
    if (claimed.failures >= maxFailures) {
      // Enough retries: end it `failed` with its last error, readable and retryable by id.
      const error = claimed.lastError ?? {
        code: "error",
        message: "failed repeatedly",
        at: new Date().toISOString(),
      };
      try {
        await store.finish(claimed.lease, { state: "failed", error });
        summary.failed++;
      } catch (thrown) {
        summary.errors++;
        options.onError?.(thrown, runId);
      }
      return;
    }
    try {
      const result = await continueClaimed(config, claimed, signal, undefined, false);
      if (result.status === "pending") summary.halted++;
      else summary.finished++;
      options.onResult?.(result);
    } catch (thrown) {
      // A shutdown gives the run back; it is not an error of the run.
      if (thrown instanceof RunCancelledError && signal.aborted) return;
      // Someone cancelled it through the store: it ended cancelled, as asked.
      if (thrown instanceof RunCancelledError && thrown.cancel !== undefined) {
        summary.cancelled++;
        return;
      }
      summary.errors++;
      options.onError?.(thrown, runId);
    }
  };

  try {
    while (!signal.aborted) {
      await fireDue(false);
      let claimed: ClaimedRun | undefined;
      if (active.size < concurrency) {
        try {
          // Only this client's agent's runs: another agent's worker shares the store.
          claimed = await store.claim({
            owner: config.owner,
            leaseMs: config.leaseMs,
            agent: config.agent ?? null,
          });
        } catch (thrown) {
          // A store that is down for a moment must not stop the worker.
          options.onError?.(
            new ToolnexusError(
              "store_failed",
              `claiming a run failed: ${String((thrown as Error)?.message ?? thrown)}`,
              { cause: thrown },
            ),
            "",
          );
        }
      }
      if (claimed !== undefined) {
        summary.claimed++;
        const task: Promise<void> = handle(claimed).finally(() => {
          active.delete(task);
          poke();
        });
        active.add(task);
        continue;
      }
      // Nothing to claim (or no free slot): wait for a slot, a notification or the next poll.
      await fireDue(true);
      if (poked) {
        poked = false;
        if (active.size < concurrency) continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          wake = undefined;
          resolve();
        }, pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    unsubscribe?.();
    signal.removeEventListener("abort", poke);
    await Promise.allSettled([...active]);
  }
  return summary;
}
