// One view fetched by id (a run, a request), fetched again on `refresh()` or when the provider's
// config changes; each refetch aborts the one before it, so the newest answer wins.
import { useCallback, useEffect, useState } from "react";
import { type ToolnexusConfig, useToolnexus } from "./config.js";

export interface Fetched<T> {
  view: T | undefined;
  loading: boolean;
  error: Error | undefined;
  refresh: () => void;
}

/** `fetch(config, id)` for `id` (nothing while `undefined`); see the file comment. */
export function useFetched<T>(
  id: string | undefined,
  fetch: (config: ToolnexusConfig, id: string, signal: AbortSignal) => Promise<T>,
): Fetched<T> {
  const { baseUrl, getConfig, version } = useToolnexus();
  const [view, setView] = useState<T | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const [loading, setLoading] = useState(false);
  const [tick, setTick] = useState(0);
  const refresh = useCallback(() => setTick((t) => t + 1), []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: tick and version ask for a refetch
  useEffect(() => {
    setError(undefined);
    if (id === undefined) return;
    const controller = new AbortController();
    setLoading(true);
    fetch(getConfig(), id, controller.signal).then(
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
  }, [id, baseUrl, getConfig, tick, version]);

  return { view, loading, error, refresh };
}
