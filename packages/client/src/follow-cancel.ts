// Reaching a durable run from any process: follow its recorded events, cancel it.
import {
  type CancelReceipt,
  type CancelRequest,
  type FollowOptions,
  followRunEvents,
  type RecordedRunEvent,
  StoreUnsupportedError,
} from "@toolnexus/core";
import type { ResolvedConfig } from "./config.js";

/** `client.follow`: the run's events from `after` on, until it ends or `signal` aborts. */
export function follow(
  config: ResolvedConfig,
  runId: string,
  options: FollowOptions = {},
): AsyncIterable<RecordedRunEvent> {
  if (typeof runId !== "string" || runId === "") {
    throw new TypeError("follow: pass the run's id (RunResult.runId)");
  }
  // Checked now, not at the first `next()`: a store without events is a setup error.
  if (typeof config.runs.readEvents !== "function") {
    throw new StoreUnsupportedError("readEvents", "client.follow");
  }
  return { [Symbol.asyncIterator]: () => followRunEvents(config.runs, runId, options) };
}

/** `client.cancel`: ends the run (and its sub-agents' runs) cancelled, or asks its worker to. */
export async function cancel(
  config: ResolvedConfig,
  runId: string,
  request: CancelRequest = {},
): Promise<CancelReceipt> {
  if (typeof runId !== "string" || runId === "") {
    throw new TypeError("cancel: pass the run's id (RunResult.runId)");
  }
  const store = config.runs;
  if (typeof store.cancel !== "function")
    throw new StoreUnsupportedError("cancel", "client.cancel");
  return store.cancel(runId, request);
}
