// Who calls and what they may touch, for handlers of other protocols built on this package: the
// same 401 for an unknown caller and the same 404 for a run (or request) that is not theirs as
// createWebHandler gives, so a protocol handler reveals no more than this one does.
import type { RequestInfo, RunInfo, RunStore } from "@toolnexus/core";
import { requestNotFound, runNotFound, WebError } from "./errors.js";
import type { RunAccess, WebAccess, WebAction, WebCaller } from "./options.js";

type Awaitable<T> = T | Promise<T>;

/** The longest caller id accepted from `identify` (what a store keeps as `by`). */
export const MAX_CALLER_ID_CHARS = 256;

/**
 * The caller `identify` finds for `request`; a `401 unauthenticated` WebError when none. A caller
 * without a usable `id` is the host's bug: a TypeError (a 500), never a guess.
 */
export async function identifyCaller<C extends WebCaller>(
  identify: (request: Request) => Awaitable<C | undefined>,
  request: Request,
): Promise<C> {
  const caller = await identify(request);
  if (caller === undefined || caller === null) {
    throw new WebError(401, "unauthenticated", "sign in first: this server does not know you");
  }
  if (typeof caller.id !== "string" || caller.id === "" || caller.id.length > MAX_CALLER_ID_CHARS) {
    throw new TypeError(
      `identify returned a caller whose id is not a string of 1 to ${MAX_CALLER_ID_CHARS} characters`,
    );
  }
  return caller;
}

/** What `allow` is asked about `action` on `run` (and one of its requests). */
export function runAccessOf(action: WebAction, run: RunInfo, info?: RequestInfo): RunAccess {
  const access: RunAccess = { action, runId: run.runId };
  if (run.sessionId !== undefined) access.sessionId = run.sessionId;
  if (run.agent !== undefined) access.agent = run.agent;
  if (info !== undefined) {
    access.requestId = info.request.id;
    access.kind = info.request.kind;
  }
  return access;
}

/** Everything a protocol handler needs to ask `allow`. */
export interface AccessCheck<C extends WebCaller> {
  store: RunStore;
  caller: C;
  allow?: ((caller: C, access: WebAccess) => Awaitable<boolean>) | undefined;
}

/** Only a literal `true` from `allow` lets a caller in; no `allow` lets no one in. */
export async function permits<C extends WebCaller>(
  check: AccessCheck<C>,
  access: WebAccess,
): Promise<boolean> {
  return check.allow !== undefined && (await check.allow(check.caller, access)) === true;
}

/** The run, when it exists and `allow` lets the caller do `action` on it; else the one 404. */
export async function authorizeRun<C extends WebCaller>(
  check: AccessCheck<C>,
  runId: string,
  action: WebAction,
): Promise<RunInfo> {
  const run = await check.store.getRun(runId);
  if (run === undefined || !(await permits(check, runAccessOf(action, run)))) throw runNotFound();
  return run;
}

/**
 * A request and its run, when `allow` lets the caller do `action` on that run (asked with the
 * request's id and kind); else the one 404.
 */
export async function authorizeRequest<C extends WebCaller>(
  check: AccessCheck<C>,
  requestId: string,
  action: WebAction,
): Promise<{ info: RequestInfo; run: RunInfo }> {
  const info = await check.store.getRequest(requestId);
  const run = info === undefined ? undefined : await check.store.getRun(info.runId);
  if (info === undefined || run === undefined) throw requestNotFound();
  if (!(await permits(check, runAccessOf(action, run, info)))) throw requestNotFound();
  return { info, run };
}
