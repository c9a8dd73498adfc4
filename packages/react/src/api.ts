// The handler's routes as plain async functions over the provider's config. Each call reads the
// config when it runs (headers may be a function of the current session), never at import.
import type { RequestView, RunView } from "@toolnexus/web";
import type { ToolnexusConfig } from "./config.js";
import { ToolnexusHttpError } from "./errors.js";

/** `GET /requests` filters. */
export interface RequestsQuery {
  session?: string;
  agent?: string;
  kind?: string;
  /** Default `"waiting"` in {@link useRequests}; `"all"` for every state. */
  state?: "waiting" | "answered" | "applied" | "expired" | "cancelled" | "all";
  limit?: number;
}

/** The body of an answer: yes with data, or no with a reason. */
export interface AnswerBody {
  ok: boolean;
  data?: Record<string, unknown>;
  reason?: "declined" | "cancelled" | "expired";
}

/** What `POST /requests/:id/answer` returns. */
export interface AnswerReceipt {
  requestId: string;
  runId: string;
  /** The same answer was already recorded (another tab): nothing runs twice. */
  duplicate: boolean;
  state: string;
}

/** What `POST /runs/:id/cancel` returns. */
export interface CancelReceipt {
  runId: string;
  outcome: "cancelled" | "requested" | "already_cancelled" | "finished";
  state: string;
}

/** The URL of `path` under the config's base URL. */
export function urlOf(config: ToolnexusConfig, path: string): string {
  return `${config.baseUrl.replace(/\/+$/, "")}${path}`;
}

/** The fetch options every call shares: the config's headers and credentials. */
export function initOf(config: ToolnexusConfig, extra: Record<string, string> = {}): RequestInit {
  const headers = typeof config.headers === "function" ? config.headers() : config.headers;
  return {
    headers: { ...headers, ...extra },
    ...(config.credentials === undefined ? {} : { credentials: config.credentials }),
  };
}

export function fetchOf(config: ToolnexusConfig): typeof fetch {
  return config.fetch ?? ((input, init) => globalThis.fetch(input, init));
}

/** Calls one JSON route; a non-2xx status throws a {@link ToolnexusHttpError}. */
export async function callJson<T>(
  config: ToolnexusConfig,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
  signal?: AbortSignal,
): Promise<T> {
  const init = initOf(config, body === undefined ? {} : { "content-type": "application/json" });
  const response = await fetchOf(config)(urlOf(config, path), {
    ...init,
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...(signal === undefined ? {} : { signal }),
  });
  let parsed: unknown;
  try {
    parsed = await response.json();
  } catch {
    parsed = undefined;
  }
  if (!response.ok) throw new ToolnexusHttpError(response.status, parsed);
  return parsed as T;
}

const id = (value: string) => encodeURIComponent(value);

export function queryString(query: RequestsQuery): string {
  const params = new URLSearchParams();
  for (const key of ["session", "agent", "kind", "state", "limit"] as const) {
    const value = query[key];
    if (value !== undefined && !(key === "state" && value === "all"))
      params.set(key, String(value));
  }
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}

export const listRequests = (config: ToolnexusConfig, query: RequestsQuery, signal?: AbortSignal) =>
  callJson<{ requests: RequestView[]; more: boolean }>(
    config,
    "GET",
    `/requests${queryString(query)}`,
    undefined,
    signal,
  );

export const getRun = (config: ToolnexusConfig, runId: string, signal?: AbortSignal) =>
  callJson<RunView>(config, "GET", `/runs/${id(runId)}`, undefined, signal);

export const getRequest = (config: ToolnexusConfig, requestId: string, signal?: AbortSignal) =>
  callJson<RequestView>(config, "GET", `/requests/${id(requestId)}`, undefined, signal);

export const postAnswer = (config: ToolnexusConfig, requestId: string, body: AnswerBody) =>
  callJson<AnswerReceipt>(config, "POST", `/requests/${id(requestId)}/answer`, body);

export const postCancel = (config: ToolnexusConfig, runId: string, reason?: string) =>
  callJson<CancelReceipt>(
    config,
    "POST",
    `/runs/${id(runId)}/cancel`,
    reason === undefined ? {} : { reason },
  );
