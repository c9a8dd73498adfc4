import { randomId } from "./ids.js";
import type { ToolResult } from "./result.js";
import { type Request, type RequestKind, type RequestRoute, routeOf } from "./wire.js";

/** What `pending()` takes: a Request whose `id` is optional and whose `expiresAt` may be a Date. */
export interface PendingInit {
  kind: RequestKind;
  prompt: string;
  url?: string;
  data?: Record<string, unknown>;
  /** When the human's time to answer runs out: a Date, epoch milliseconds or an ISO string. */
  expiresAt?: Date | number | string;
  /** Leave it out and a unique, unguessable id is generated. */
  id?: string;
  /** An escalated question's origin (set by `agentTool`; see {@link Request.route}). */
  route?: RequestRoute;
  /**
   * What the tool needs back to go on after the answer (a server's opaque continuation token,
   * say): JSON data kept with the suspension, in the durable checkpoint too, and handed back
   * unchanged as `ctx.resumeState` on the re-execution. Never shown to the model or the human.
   */
  state?: unknown;
}

function toIso(value: Date | number | string, field: string): string {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) {
    throw new TypeError(`pending(): "${field}" is not a valid date: ${String(value)}`);
  }
  return date.toISOString();
}

/**
 * Suspends a tool call: return this from a tool that cannot finish without a human (a login,
 * an approval, a missing value). The client either waits for the answer in-process (`waitFor`)
 * or halts the run durably; then it calls the same tool again with `ctx.answer` set.
 *
 * The result is an ordinary ToolResult: `isError` is true (the call did not do its work yet),
 * `output` is the prompt (plus the url on its own line), and `metadata.pending` is the Request.
 */
export function pending(init: PendingInit): ToolResult {
  if (typeof init.prompt !== "string") throw new TypeError('pending(): "prompt" must be a string');
  if (typeof init.kind !== "string" || init.kind === "") {
    throw new TypeError('pending(): "kind" must be a non-empty string');
  }
  const request: Request = { id: init.id ?? randomId("pnd"), kind: init.kind, prompt: init.prompt };
  if (init.url !== undefined) request.url = init.url;
  if (init.data !== undefined) request.data = init.data;
  if (init.expiresAt !== undefined) request.expiresAt = toIso(init.expiresAt, "expiresAt");
  if (init.route !== undefined) {
    const route = routeOf(init.route);
    if (route === undefined) {
      throw new TypeError('pending(): "route" must be { agent: string, path: string[] }');
    }
    request.route = route;
  }
  const output = request.url === undefined ? request.prompt : `${request.prompt}\n${request.url}`;
  const metadata: Record<string, unknown> = { pending: request };
  if (init.state !== undefined) metadata[RESUME_STATE] = init.state;
  return { output, isError: true, metadata };
}

/** Where a suspended result keeps `pending({ state })`: `metadata.resumeState`. */
export const RESUME_STATE = "resumeState";

/** The `state` a suspended result carries for its re-execution (`pending({ state })`), if any. */
export function resumeStateOf(result: ToolResult | undefined | null): unknown {
  return result?.metadata?.[RESUME_STATE];
}

/**
 * The Request inside a suspended result, or `undefined` when the result is not a suspension.
 * Use it in hosts and hooks to find out what the tool is waiting for.
 */
export function pendingOf(result: ToolResult | undefined | null): Request | undefined {
  const candidate = result?.metadata?.pending;
  if (typeof candidate !== "object" || candidate === null) return undefined;
  const request = candidate as Partial<Request>;
  return typeof request.id === "string" &&
    typeof request.kind === "string" &&
    typeof request.prompt === "string"
    ? (request as Request)
    : undefined;
}

/** True when the result is a suspension (its `metadata.pending` is a Request). */
export function isPending(result: ToolResult | undefined | null): boolean {
  return pendingOf(result) !== undefined;
}

/**
 * A suspension asking the human to authorize at `url` (an OAuth consent page, a login). On the
 * re-execution the world has changed out-of-band, so the tool simply retries its real work.
 */
export function authRequired(url: string, prompt?: string): ToolResult {
  return pending({ kind: "authorization", prompt: prompt ?? "Authorization required", url });
}
