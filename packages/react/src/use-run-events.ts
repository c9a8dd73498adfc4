// A run's events, live: one stream per mounted hook, resumed from the last offset after a drop,
// closed at the terminal event or on unmount (the server then stops following the store).
import { useEffect, useRef, useState } from "react";
import { useToolnexus } from "./config.js";
import { followRunEvents, type RunEventMessage } from "./follow.js";

/** Where a followed run's stream is. */
export type RunEventsStatus = "idle" | "connecting" | "open" | "reconnecting" | "ended" | "error";

export interface UseRunEventsOptions {
  /** Follow only while true (default true). */
  enabled?: boolean;
  /** Keep at most this many events, the newest (default 1,000); `lastOffset` still counts all. */
  maxEvents?: number;
  /** Called with each event as it arrives (the latest function given is used). */
  onEvent?: (event: RunEventMessage) => void;
}

export interface RunEventsState {
  /** The events so far, oldest first (at most `maxEvents`). */
  events: RunEventMessage[];
  status: RunEventsStatus;
  /** A refusal that ended following (`ToolnexusHttpError`: 401, 404…). */
  error: Error | undefined;
  /** The offset of the last event seen (0 before any). */
  lastOffset: number;
}

const IDLE: RunEventsState = { events: [], status: "idle", error: undefined, lastOffset: 0 };

/** Follows `runId`'s events (`undefined`: nothing to follow). */
export function useRunEvents(
  runId: string | undefined,
  options: UseRunEventsOptions = {},
): RunEventsState {
  const { baseUrl, getConfig } = useToolnexus();
  const enabled = options.enabled ?? true;
  const maxEvents = options.maxEvents ?? 1_000;
  const onEvent = useRef(options.onEvent);
  onEvent.current = options.onEvent;
  const [state, setState] = useState<RunEventsState>(IDLE);

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new base URL is a new stream
  useEffect(() => {
    if (runId === undefined || !enabled) {
      setState(IDLE);
      return;
    }
    const controller = new AbortController();
    setState({ ...IDLE, status: "connecting" });
    followRunEvents(getConfig(), runId, {
      signal: controller.signal,
      onConnection: (open) => setState((s) => ({ ...s, status: open ? "open" : "reconnecting" })),
      onEvent: (event) => {
        setState((s) => {
          const events = [...s.events, event];
          if (events.length > maxEvents) events.splice(0, events.length - maxEvents);
          return { ...s, events, lastOffset: event.offset };
        });
        onEvent.current?.(event);
      },
    }).then(
      (outcome) => {
        if (outcome === "ended") setState((s) => ({ ...s, status: "ended" }));
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        const failure = error instanceof Error ? error : new Error(String(error));
        setState((s) => ({ ...s, status: "error", error: failure }));
      },
    );
    return () => controller.abort();
  }, [runId, enabled, baseUrl, getConfig, maxEvents]);

  return state;
}
