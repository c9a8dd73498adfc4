import type { RunStore } from "@toolnexus/core";
import { allowedOriginsOf } from "./origins.js";
import { DEFAULT_MAX_STREAMS_PER_CALLER, type StreamSlots, streamSlots } from "./stream-slots.js";

type Awaitable<T> = T | Promise<T>;

/** Who is calling, as your `identify` found them: at least a stable id. */
export interface WebCaller {
  /** Recorded as who answered or cancelled (`answeredBy`, `cancel.by`): never read from a body. */
  id: string;
  [key: string]: unknown;
}

/** What a caller wants to do with a run. */
export type WebAction = "read" | "answer" | "follow" | "cancel";

/** What `allow` is asked about: an action on one run (and request, for `read`/`answer`). */
export interface RunAccess {
  action: WebAction;
  runId: string;
  /** The run's session, when it has one. */
  sessionId?: string;
  /** The run's agent, when it has one. */
  agent?: string;
  /** The request concerned, for reading or answering one request. */
  requestId?: string;
  /** That request's kind. */
  kind?: string;
}

/** What `allow` is asked about before `start` is called. */
export interface StartAccess {
  action: "start";
}

export type WebAccess = RunAccess | StartAccess;

/** What your `start` function is given. */
export interface StartContext<C extends WebCaller> {
  caller: C;
  /** The POST body, parsed JSON (already within `maxBodyBytes`); check it yourself. */
  body: unknown;
  request: Request;
}

/** Where an error the handler did not expect is reported, with the id its 500 response names. */
export interface ErrorContext {
  errorId: string;
  request: Request;
}

/** Options of {@link createWebHandler}. */
export interface WebHandlerOptions<C extends WebCaller = WebCaller> {
  /** Any RunStore: the client's memory store, store-sqlite, store-postgres, your own. */
  store: RunStore;
  /**
   * The caller from your own session, cookie or token; `undefined` (or no `id`) answers 401.
   * Called once per request, before anything is looked up.
   */
  identify: (request: Request) => Awaitable<C | undefined>;
  /**
   * Whether `caller` may do `access.action` on the run. Without it nothing is allowed (every
   * run is a 404, `POST /runs` a 404). A denied run looks exactly like an unknown one.
   */
  allow?: (caller: C, access: WebAccess) => Awaitable<boolean>;
  /** Where the routes are mounted, e.g. `"/api/toolnexus"` (default `""`: at the root). */
  basePath?: string;
  /**
   * Origins (`https://app.example.com`) besides the request's own whose browsers may POST.
   * Needed when a proxy changes the Host the handler sees.
   */
  allowedOrigins?: readonly string[];
  /** The largest POST body read, in bytes (default {@link DEFAULT_MAX_BODY_BYTES}); more: 413. */
  maxBodyBytes?: number;
  /** Most items `GET /requests` returns (default {@link DEFAULT_LIST_LIMIT}). */
  maxListItems?: number;
  /** A comment line on an idle event stream this often (ms, default 15 000), so proxies keep it. */
  heartbeatMs?: number;
  /** How often an event stream reads again when the store gave no wake-up (ms, default 250). */
  pollMs?: number;
  /**
   * Most event streams (`GET /runs/:id/events`) one caller holds open at once (default 16;
   * counted in this process); one more is refused `429 too_many_streams`.
   */
  maxStreamsPerCaller?: number;
  /**
   * Starts a run for `POST /runs` (only when given, and `allow` says `start`): returns the new
   * run's id. Throw a {@link WebError} to refuse with your own message.
   */
  start?: (context: StartContext<C>) => Awaitable<{ runId: string }>;
  /** Called with every unexpected error; the 500 response names `errorId` and nothing else. */
  onError?: (error: unknown, context: ErrorContext) => void;
}

/** Default {@link WebHandlerOptions.maxBodyBytes}: 64 KiB, ample for an answer. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
/** Default and most {@link WebHandlerOptions.maxListItems}. */
export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 500;
/** How many requests `GET /requests` reads from the store at most before filtering by `allow`. */
export const LIST_SCAN_LIMIT = 1_000;
export const DEFAULT_HEARTBEAT_MS = 15_000;

/** Checked options, defaults filled. */
export interface ResolvedOptions<C extends WebCaller>
  extends Omit<WebHandlerOptions<C>, "allowedOrigins"> {
  basePath: string;
  allowedOrigins: ReadonlySet<string>;
  maxBodyBytes: number;
  maxListItems: number;
  heartbeatMs: number;
  /** Each caller's open event streams, at most `maxStreamsPerCaller`. */
  streams: StreamSlots;
}

function positive(value: unknown, name: string, fallback: number, max = Infinity): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1 || value > max) {
    throw new TypeError(`createWebHandler: ${name} must be a whole number from 1 to ${max}`);
  }
  return value;
}

/** Checks options once, when the handler is made: a mistake fails at startup, not per request. */
export function resolveOptions<C extends WebCaller>(
  options: WebHandlerOptions<C>,
): ResolvedOptions<C> {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("createWebHandler: pass { store, identify, allow }");
  }
  const { store, identify } = options;
  if (typeof store !== "object" || store === null || typeof store.getRun !== "function") {
    throw new TypeError("createWebHandler: store must be a RunStore");
  }
  if (typeof identify !== "function") {
    throw new TypeError("createWebHandler: identify(request) must be a function");
  }
  for (const name of ["allow", "start", "onError"] as const) {
    if (options[name] !== undefined && typeof options[name] !== "function") {
      throw new TypeError(`createWebHandler: ${name} must be a function`);
    }
  }
  const basePath = (options.basePath ?? "").replace(/\/+$/, "");
  if (basePath !== "" && !/^\/[A-Za-z0-9._~!$&'()*+,;=:@/-]*$/.test(basePath)) {
    throw new TypeError('createWebHandler: basePath must be a path such as "/api/toolnexus"');
  }
  const origins = allowedOriginsOf(options.allowedOrigins, "createWebHandler");
  if (
    options.pollMs !== undefined &&
    (typeof options.pollMs !== "number" || !Number.isFinite(options.pollMs) || options.pollMs <= 0)
  ) {
    throw new TypeError("createWebHandler: pollMs must be a positive number of milliseconds");
  }
  return {
    ...options,
    basePath,
    allowedOrigins: origins,
    maxBodyBytes: positive(options.maxBodyBytes, "maxBodyBytes", DEFAULT_MAX_BODY_BYTES),
    maxListItems: positive(
      options.maxListItems,
      "maxListItems",
      DEFAULT_LIST_LIMIT,
      MAX_LIST_LIMIT,
    ),
    heartbeatMs: positive(options.heartbeatMs, "heartbeatMs", DEFAULT_HEARTBEAT_MS),
    streams: streamSlots(
      positive(options.maxStreamsPerCaller, "maxStreamsPerCaller", DEFAULT_MAX_STREAMS_PER_CALLER),
    ),
  };
}
