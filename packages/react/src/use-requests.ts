// The requests a person may answer. Freshness by polling with backoff: a list that did not
// change waits longer each time (up to `maxPollMs`), one that changed is polled at `pollMs`
// again; an answer or cancel made through these hooks, focusing the tab, or `refresh()`
// refetches at once. Polling, not a stream, because the handler has no cross-run event feed.
import type { RequestView } from "@toolnexus/web";
import { useCallback, useEffect, useRef, useState } from "react";
import { listRequests, type RequestsQuery } from "./api.js";
import { useToolnexus } from "./config.js";

export interface UseRequestsOptions {
  /** The shortest wait between polls (default 2,000 ms). */
  pollMs?: number;
  /** The longest wait, reached by doubling while nothing changes (default 30,000 ms). */
  maxPollMs?: number;
  /** Poll at all (default true); `false` fetches once and on `refresh()` only. */
  poll?: boolean;
}

export interface RequestsState {
  /** The requests, newest first, as the handler lists them. */
  requests: RequestView[];
  /** More requests matched than the list's limit. */
  more: boolean;
  /** True until the first answer, and while a refetch runs. */
  loading: boolean;
  /** The last fetch's refusal; cleared by the next success. */
  error: Error | undefined;
  /** Fetches now (and resets the backoff). */
  refresh: () => void;
}

/** The pending requests (`state: "waiting"` unless the query says otherwise). */
export function useRequests(
  query: RequestsQuery = {},
  options: UseRequestsOptions = {},
): RequestsState {
  const { baseUrl, getConfig, version } = useToolnexus();
  const minWait = options.pollMs ?? 2_000;
  const maxWait = Math.max(minWait, options.maxPollMs ?? 30_000);
  const poll = options.poll ?? true;
  const key = JSON.stringify({ ...query, state: query.state ?? "waiting" });
  const [state, setState] = useState<Omit<RequestsState, "refresh">>({
    requests: [],
    more: false,
    loading: true,
    error: undefined,
  });
  const [tick, setTick] = useState(0);
  const refresh = useCallback(() => setTick((t) => t + 1), []);
  const last = useRef("");

  // biome-ignore lint/correctness/useExhaustiveDependencies: tick and version ask for a refetch
  useEffect(() => {
    const parsed = JSON.parse(key) as RequestsQuery;
    const controller = new AbortController();
    // One poll at a time: `timer` is the only one waiting, and none is set while a fetch runs.
    let timer: ReturnType<typeof setTimeout> | undefined;
    let fetching = false;
    // The tab came back during a fetch: the poll after it comes at `pollMs`, not backed off.
    let soon = false;
    let wait = minWait;
    const run = async () => {
      if (fetching || controller.signal.aborted) return;
      fetching = true;
      clearTimeout(timer);
      timer = undefined;
      setState((s) => (s.loading ? s : { ...s, loading: true }));
      try {
        const listed = await listRequests(getConfig(), parsed, controller.signal);
        if (controller.signal.aborted) return;
        const text = JSON.stringify(listed);
        wait = text === last.current ? Math.min(wait * 2, maxWait) : minWait;
        last.current = text;
        setState({
          requests: listed.requests,
          more: listed.more,
          loading: false,
          error: undefined,
        });
      } catch (error) {
        if (controller.signal.aborted) return;
        wait = Math.min(wait * 2, maxWait);
        const failure = error instanceof Error ? error : new Error(String(error));
        setState((s) => ({ ...s, loading: false, error: failure }));
      } finally {
        fetching = false;
      }
      if (soon) {
        soon = false;
        wait = minWait;
      }
      if (poll && !controller.signal.aborted) timer = setTimeout(run, wait);
    };
    void run();
    // Coming back to the tab is when a person looks: fetch then, not after the backoff. A fetch
    // already under way is that fetch; only the next poll comes sooner.
    const onVisible = () => {
      if (typeof document !== "undefined" && document.visibilityState !== "visible") return;
      wait = minWait;
      if (fetching) {
        soon = true;
        return;
      }
      void run();
    };
    const target = typeof document === "undefined" ? undefined : document;
    target?.addEventListener("visibilitychange", onVisible);
    return () => {
      controller.abort();
      clearTimeout(timer);
      target?.removeEventListener("visibilitychange", onVisible);
    };
  }, [key, baseUrl, getConfig, tick, version, minWait, maxWait, poll]);

  return { ...state, refresh };
}
