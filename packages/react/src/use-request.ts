// One request by id (a link to it, `#request=<id>`): its prompt, schema and state, and who
// answered once it is answered; fetched again after an answer or cancel through these hooks.
import type { RequestView } from "@toolnexus/web";
import { useCallback, useEffect, useState } from "react";
import { getRequest } from "./api.js";
import { useToolnexus } from "./config.js";

export interface RequestState {
  /** The request; `undefined` until fetched (or for another id). */
  request: RequestView | undefined;
  loading: boolean;
  /** A refusal: a `ToolnexusHttpError` (404 for unknown ids and ids not the caller's alike). */
  error: Error | undefined;
  refresh: () => void;
}

/** The request `requestId` as the handler shows it (`undefined`: nothing to fetch). */
export function useRequest(requestId: string | undefined): RequestState {
  const { baseUrl, getConfig, version } = useToolnexus();
  const [view, setView] = useState<RequestView | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const [loading, setLoading] = useState(false);
  const [tick, setTick] = useState(0);
  const refresh = useCallback(() => setTick((t) => t + 1), []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: tick and version ask for a refetch
  useEffect(() => {
    setError(undefined);
    if (requestId === undefined) return;
    const controller = new AbortController();
    setLoading(true);
    getRequest(getConfig(), requestId, controller.signal).then(
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
  }, [requestId, baseUrl, getConfig, tick, version]);

  const request = view !== undefined && view.id === requestId ? view : undefined;
  return { request, loading, error, refresh };
}
