// What the routes show of a run and its requests: what a person answering or watching needs,
// never the raw checkpoint (transcript, tool arguments) nor an answer's data.
import type { CancelInfo, RequestInfo, RunInfo, SuspensionSummary } from "@toolnexus/core";

/** One request as the handler shows it. */
export interface RequestView {
  id: string;
  runId: string;
  kind: string;
  prompt: string;
  url?: string;
  /** The request's `data`, with its JSON Schema (`data.schema`) for a form. */
  data?: Record<string, unknown>;
  route?: { agent: string; path: string[] };
  state: string;
  expiresAt?: string;
  /** Whether the recorded answer said yes, and its reason; never its data. */
  answer?: { ok: boolean; reason?: string };
  answeredBy?: string;
  answeredAt?: string;
  sessionId?: string;
  agent?: string;
  createdAt?: string;
}

/** A run as `GET /runs/:id` shows it. */
export interface RunView {
  runId: string;
  state: string;
  sessionId?: string;
  agent?: string;
  createdAt: string;
  updatedAt: string;
  requests: RequestView[];
  /** The final text of a `done` run. */
  text?: string;
  failures: number;
  lastError?: { code: string; message: string; at?: string };
  cancel?: CancelInfo;
}

type Source = Pick<RequestInfo, "request" | "runId" | "state" | "answer"> &
  Partial<Pick<SuspensionSummary, "answeredBy" | "answeredAt" | "expiresAt" | "createdAt">>;

export function requestView(
  info: Source,
  run?: { sessionId?: string | undefined; agent?: string | undefined },
): RequestView {
  const { request } = info;
  const view: RequestView = {
    id: request.id,
    runId: info.runId,
    kind: request.kind,
    prompt: request.prompt,
    state: info.state,
  };
  if (request.url !== undefined) view.url = request.url;
  if (request.data !== undefined) view.data = request.data;
  if (request.route !== undefined) view.route = request.route;
  const expiresAt = info.expiresAt ?? request.expiresAt;
  if (expiresAt !== undefined) view.expiresAt = expiresAt;
  if (info.answer !== undefined) {
    view.answer = { ok: info.answer.ok };
    if (info.answer.reason !== undefined) view.answer.reason = info.answer.reason;
  }
  if (info.answeredBy !== undefined) view.answeredBy = info.answeredBy;
  if (info.answeredAt !== undefined) view.answeredAt = info.answeredAt;
  if (run?.sessionId !== undefined) view.sessionId = run.sessionId;
  if (run?.agent !== undefined) view.agent = run.agent;
  if (info.createdAt !== undefined) view.createdAt = info.createdAt;
  return view;
}

export function runView(run: RunInfo): RunView {
  const view: RunView = {
    runId: run.runId,
    state: run.state,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
    requests: run.requests.map((info) => requestView(info)),
    failures: run.failures,
  };
  if (run.sessionId !== undefined) view.sessionId = run.sessionId;
  if (run.agent !== undefined) view.agent = run.agent;
  if (run.result !== undefined && typeof run.result.text === "string") view.text = run.result.text;
  if (run.lastError !== undefined) {
    const { code, message, at } = run.lastError;
    view.lastError = { code, message, ...(at === undefined ? {} : { at }) };
  }
  if (run.cancel !== undefined) view.cancel = { ...run.cancel };
  return view;
}
