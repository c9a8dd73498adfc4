// A run's view (`GET /runs/:id`), fetched again after each event its stream brings, so the
// page shows the state, the requests and the final text as they change.
import type { RunView } from "@toolnexus/web";
import { useCallback, useEffect, useState } from "react";
import { getRun } from "./api.js";
import { useToolnexus } from "./config.js";
import type { RunEventMessage } from "./follow.js";
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
  const { baseUrl, getConfig, version } = useToolnexus();
  const live = options.live ?? true;
  const [view, setView] = useState<RunView | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const [loading, setLoading] = useState(false);
  const [tick, setTick] = useState(0);
  const refresh = useCallback(() => setTick((t) => t + 1), []);
  const { events, status } = useRunEvents(runId, { enabled: live, onEvent: refresh });

  // Each refetch aborts the one before it: the newest view wins, a burst costs one answer.
  // biome-ignore lint/correctness/useExhaustiveDependencies: tick and version ask for a refetch
  useEffect(() => {
    setError(undefined);
    if (runId === undefined) return;
    const controller = new AbortController();
    setLoading(true);
    getRun(getConfig(), runId, controller.signal).then(
      (fetched) => {
        if (controller.signal.aborted) return;
        setView(fetched);
        setLoading(false);
      },
      (failure: unknown) => {
        if (controller.signal.aborted) return;
        setError(failure instanceof Error ? failure : new Error(String(failure)));
        setLoading(false);
      },
    );
    return () => controller.abort();
  }, [runId, baseUrl, getConfig, tick, version]);

  // A view of another run (the id changed) is never shown.
  const run = view !== undefined && view.runId === runId ? view : undefined;
  return { run, loading, error, events, stream: status, refresh };
}
