// One request by id (a link to it, `#request=<id>`): its prompt, schema and state, and who
// answered once it is answered; fetched again after an answer or cancel through these hooks.
import type { RequestView } from "@toolnexus/web";
import { getRequest } from "./api.js";
import { useFetched } from "./use-fetched.js";

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
  const { view, loading, error, refresh } = useFetched(requestId, getRequest);
  const request = view !== undefined && view.id === requestId ? view : undefined;
  return { request, loading, error, refresh };
}
