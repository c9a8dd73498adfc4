// `client.run(prompt, { runId, durability: store })`: a run store as the run's durable backend,
// with the engines' call shape. The run lives in the store under leases (each claim's steps are
// a LeaseDurability over it), a halt waits on the store for answers recorded by `answer` from
// any process, and the run continues in the same call. Called again with the same id (another
// process, after a crash), it continues the stored run instead of starting another.
import type { AwaitedRequest, RunStore } from "@toolnexus/core";
import type { ResolvedConfig } from "./config.js";
import { settleRun } from "./durable.js";
import { RunCancelledError } from "./errors.js";
import { startRun } from "./start.js";
import { waitForAnswers } from "./store-answers.js";
import type { RunOptions, RunResult } from "./types.js";

/** Whether `durability` is a run store (its `claim`) rather than an engine's Durability. */
export function isRunStore(durability: unknown): durability is RunStore {
  const given = durability as Partial<RunStore> | null;
  return typeof given?.claim === "function" && typeof given.start === "function";
}

/** Runs `prompt` on `store` to its end (done or incomplete), waiting on the store through halts. */
export async function runOnStore(
  config: ResolvedConfig,
  store: RunStore,
  prompt: string,
  options: RunOptions & { runId: string },
): Promise<RunResult> {
  const { runId, signal } = options;
  // A question waits on the store, never in a step.
  const own: ResolvedConfig = { ...config, runs: store, defaultRuns: false, waitFor: undefined };
  let result =
    (await store.getRun(runId)) === undefined
      ? await startOrJoin(own, prompt, options)
      : await settleRun(own, runId, signal, undefined);
  while (result.status === "pending") {
    try {
      await waitForAnswers(store, await awaitedOf(store, runId), signal);
    } catch (thrown) {
      // Giving up the wait through `signal` leaves the run waiting in the store (a later call
      // with its id continues it); this call rejects as every cancelled run does.
      if (signal?.aborted) throw new RunCancelledError(result.messages, runId, signal.reason);
      throw thrown;
    }
    result = await settleRun(own, runId, signal, undefined);
  }
  return result;
}

/** Starts the run; when another process started the same id first, continues that one. */
async function startOrJoin(
  config: ResolvedConfig,
  prompt: string,
  options: RunOptions & { runId: string },
): Promise<RunResult> {
  const { durability: _store, ...rest } = options;
  try {
    return await startRun(config, prompt, { ...rest, durable: true }, { history: options.history });
  } catch (thrown) {
    // Matched by code, not instanceof: a store may load its own copy of core.
    if ((thrown as { code?: unknown } | null)?.code !== "run_exists") throw thrown;
    return settleRun(config, options.runId, options.signal, undefined);
  }
}

/** The halted run's requests that still wait, with their deadlines. */
export async function awaitedOf(store: RunStore, runId: string): Promise<AwaitedRequest[]> {
  const info = await store.getRun(runId);
  const pending = info?.checkpoint?.pending ?? [];
  return pending.map((call) => {
    const deadline = call.deadline ?? call.request.expiresAt;
    return deadline === undefined ? { request: call.request } : { request: call.request, deadline };
  });
}
