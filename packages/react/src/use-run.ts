// A run's view (`GET /runs/:id`), fetched again after each event its stream brings, so the
// page shows the state, the requests and the final text as they change.
import type { RunView } from "@toolnexus/web";
import { getRun } from "./api.js";
import type { RunEventMessage } from "./follow.js";
import { useFetched } from "./use-fetched.js";
import { type RunEventsStatus, useRunEvents } from "./use-run-events.js";

export interface UseRunOptions {
  /** Follow the run's events and fetch the view again after them (default true). */
  live?: boolean;
}

export interface RunState {
  /** The latest view; `undefined` until the first fetch answers. */
  run: RunView | undefined;
  loading: boolean;
  error: Error | undefined;
  /** The run's events so far (empty unless `live`). */
  events: RunEventMessage[];
  /** The event stream's status (`idle` unless `live`). */
  stream: RunEventsStatus;
  /** Fetches the view again now. */
  refresh: () => void;
}

/** The run `runId` as the handler shows it, kept current while `live`. */
export function useRun(runId: string | undefined, options: UseRunOptions = {}): RunState {
  const live = options.live ?? true;
  const { view, loading, error, refresh } = useFetched(runId, getRun);
  const { events, status } = useRunEvents(runId, { enabled: live, onEvent: refresh });

  // A view of another run (the id changed) is never shown.
  const run = view !== undefined && view.runId === runId ? view : undefined;
  return { run, loading, error, events, stream: status, refresh };
}
