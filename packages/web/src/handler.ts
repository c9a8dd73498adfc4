// The Fetch API handler: `Request` in, `Response` out, over any RunStore. Every route checks,
// in this order, the route, a POST's origin, the caller (identify), the body, and then the run
// with `allow`; a run the caller may not touch is the same 404 as a run that does not exist.
import { type RequestState, RunNotFoundError } from "@toolnexus/core";
import { answerOf } from "./answer-body.js";
import { errorResponse, internalResponse, jsonResponse, runNotFound, WebError } from "./errors.js";
import { eventStreamResponse } from "./event-stream.js";
import { checkOrigin, offsetOf, onlyParams, queryValue, readJson } from "./guard.js";
import {
  LIST_SCAN_LIMIT,
  type ResolvedOptions,
  type RunAccess,
  resolveOptions,
  type WebCaller,
  type WebHandlerOptions,
} from "./options.js";
import { recordAnswer } from "./record-answer.js";
import { reportError } from "./report.js";
import { matchRoute, type Route } from "./routes.js";
import {
  type AccessCheck,
  authorizeRequest,
  authorizeRun,
  identifyCaller,
  permits,
} from "./run-access.js";
import { requestView, runView } from "./views.js";

/** A standard Fetch API handler: mount it in Hono, Next.js, Bun, Deno, or `toNodeListener`. */
export type WebHandler = (request: Request) => Promise<Response>;

const REQUEST_STATES: readonly RequestState[] = [
  "waiting",
  "answered",
  "applied",
  "expired",
  "cancelled",
];
const MAX_REASON_CHARS = 1_000;

/**
 * Makes the handler. Options are checked now (a TypeError names a bad one); see the README for
 * the routes and what each refuses.
 */
export function createWebHandler<C extends WebCaller>(options: WebHandlerOptions<C>): WebHandler {
  const resolved = resolveOptions(options);
  return async (request) => {
    try {
      return await handle(resolved, request);
    } catch (error) {
      if (error instanceof WebError) return errorResponse(error);
      return internalResponse(reportError(resolved.onError, "@toolnexus/web", request, error));
    }
  };
}

async function handle<C extends WebCaller>(
  options: ResolvedOptions<C>,
  request: Request,
): Promise<Response> {
  const url = new URL(request.url);
  const route = matchRoute(
    request.method,
    url.pathname,
    options.basePath,
    options.start !== undefined,
  );
  if (request.method === "POST") checkOrigin(request, url, options.allowedOrigins);
  const caller = await identifyCaller(options.identify, request);
  const ctx: Context<C> = {
    options,
    request,
    url,
    caller,
    check: { store: options.store, caller, allow: options.allow },
  };
  return dispatch(ctx, route);
}

interface Context<C extends WebCaller> {
  options: ResolvedOptions<C>;
  request: Request;
  url: URL;
  caller: C;
  check: AccessCheck<C>;
}

function dispatch<C extends WebCaller>(ctx: Context<C>, route: Route): Promise<Response> {
  switch (route.name) {
    case "listRequests":
      return listRequests(ctx);
    case "getRequest":
      return getRequest(ctx, route.id);
    case "answer":
      return answer(ctx, route.id);
    case "getRun":
      return getRun(ctx, route.id);
    case "events":
      return events(ctx, route.id);
    case "cancel":
      return cancel(ctx, route.id);
    case "start":
      return start(ctx);
  }
}

async function listRequests<C extends WebCaller>(ctx: Context<C>): Promise<Response> {
  const { url, options } = ctx;
  const issues: string[] = [];
  onlyParams(url, ["session", "agent", "kind", "state", "limit"], issues);
  const sessionId = queryValue(url, "session", issues);
  const agent = queryValue(url, "agent", issues);
  const kind = queryValue(url, "kind", issues);
  const state = queryValue(url, "state", issues);
  if (state !== undefined && !REQUEST_STATES.includes(state as RequestState)) {
    issues.push(`state: one of ${REQUEST_STATES.join(", ")}`);
  }
  const limitText = queryValue(url, "limit", issues);
  const limit = limitText === undefined ? options.maxListItems : offsetOf(limitText);
  if (limit === undefined || limit < 1 || limit > options.maxListItems) {
    issues.push(`limit: a whole number from 1 to ${options.maxListItems}`);
  }
  if (issues.length > 0) throw new WebError(400, "bad_request", "bad query", { issues });

  // The store filters what it can; `allow` then drops what this caller may not read. Reading a
  // bounded number first keeps one call's cost bounded whatever the store holds.
  const summaries = await options.store.list({
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(kind === undefined ? {} : { kind }),
    ...(state === undefined ? {} : { state: state as RequestState }),
    limit: LIST_SCAN_LIMIT,
  });
  const requests = [];
  let more = false;
  for (const summary of summaries) {
    if (agent !== undefined && summary.agent !== agent) continue;
    const access: RunAccess = {
      action: "read",
      runId: summary.runId,
      requestId: summary.request.id,
      kind: summary.request.kind,
    };
    if (summary.sessionId !== undefined) access.sessionId = summary.sessionId;
    if (summary.agent !== undefined) access.agent = summary.agent;
    if (!(await permits(ctx.check, access))) continue;
    if (requests.length === limit) {
      more = true;
      break;
    }
    requests.push(requestView(summary, summary));
  }
  return jsonResponse(200, { requests, more });
}

async function getRequest<C extends WebCaller>(ctx: Context<C>, id: string): Promise<Response> {
  const { info, run } = await authorizeRequest(ctx.check, id, "read");
  return jsonResponse(200, requestView(info, run));
}

async function answer<C extends WebCaller>(ctx: Context<C>, id: string): Promise<Response> {
  const { options, request, caller } = ctx;
  // The body is checked before the lookup: a malformed one is refused the same for everyone.
  const reply = answerOf(id, await readJson(request, options.maxBodyBytes));
  const { info } = await authorizeRequest(ctx.check, id, "answer");
  const receipt = await recordAnswer(options.store, info.request, reply, caller.id);
  return jsonResponse(200, {
    requestId: receipt.requestId,
    runId: receipt.runId,
    duplicate: receipt.duplicate,
    state: receipt.state,
  });
}

async function getRun<C extends WebCaller>(ctx: Context<C>, id: string): Promise<Response> {
  return jsonResponse(200, runView(await authorizeRun(ctx.check, id, "read")));
}

async function events<C extends WebCaller>(ctx: Context<C>, id: string): Promise<Response> {
  const { options, request, url } = ctx;
  const issues: string[] = [];
  onlyParams(url, ["after"], issues);
  // EventSource resends the last id it saw as Last-Event-ID; it wins over the URL's `after`.
  const lastId = request.headers.get("last-event-id");
  const afterText = lastId ?? queryValue(url, "after", issues);
  const after = afterText === undefined ? 0 : offsetOf(afterText.trim());
  if (after === undefined) issues.push("after (or Last-Event-ID): a whole number, 0 or more");
  if (issues.length > 0) throw new WebError(400, "bad_request", "bad query", { issues });
  if (typeof options.store.readEvents !== "function") {
    throw new WebError(501, "not_implemented", "this server's store does not record run events");
  }
  await authorizeRun(ctx.check, id, "follow");
  // A slot is taken once the caller may follow this run, and freed when its stream stops.
  const release = options.streams.take(ctx.caller.id);
  try {
    return eventStreamResponse({
      store: options.store,
      runId: id,
      after: after!,
      heartbeatMs: options.heartbeatMs,
      ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
      signal: request.signal,
      onError: (error) => reportError(options.onError, "@toolnexus/web", request, error),
      onClose: release,
    });
  } catch (error) {
    release();
    throw error;
  }
}

async function cancel<C extends WebCaller>(ctx: Context<C>, id: string): Promise<Response> {
  const { options, request, caller } = ctx;
  const body = await readJson(request, options.maxBodyBytes);
  const issues: string[] = [];
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    issues.push("the body must be a JSON object { reason? }");
  } else {
    for (const key of Object.keys(body)) {
      if (key !== "reason") issues.push(`${key.slice(0, 40)}: unknown field`);
    }
    const { reason } = body as { reason?: unknown };
    if (reason !== undefined && (typeof reason !== "string" || reason.length > MAX_REASON_CHARS)) {
      issues.push(`reason: a string of at most ${MAX_REASON_CHARS} characters`);
    }
  }
  if (issues.length > 0) throw new WebError(400, "bad_request", "bad cancel", { issues });
  const { store } = options;
  if (typeof store.cancel !== "function") {
    throw new WebError(501, "not_implemented", "this server's store cannot cancel runs");
  }
  await authorizeRun(ctx.check, id, "cancel");
  const reason = (body as { reason?: string }).reason;
  try {
    const receipt = await store.cancel(id, {
      by: caller.id,
      ...(reason === undefined ? {} : { reason }),
    });
    return jsonResponse(200, {
      runId: receipt.runId,
      outcome: receipt.outcome,
      state: receipt.state,
    });
  } catch (error) {
    if (error instanceof RunNotFoundError) throw runNotFound(); // pruned meanwhile
    throw error;
  }
}

async function start<C extends WebCaller>(ctx: Context<C>): Promise<Response> {
  const { options, request, caller } = ctx;
  const body = await readJson(request, options.maxBodyBytes);
  const { allow } = options;
  if (allow === undefined || (await allow(caller, { action: "start" })) !== true) {
    throw new WebError(403, "forbidden", "you may not start runs here");
  }
  const started = await options.start!({ caller, body, request });
  if (typeof started?.runId !== "string" || started.runId === "") {
    throw new TypeError("start must return { runId: string }");
  }
  return jsonResponse(201, { runId: started.runId });
}
