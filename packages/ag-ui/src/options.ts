// The handler's options, checked once when it is made: a mistake fails at startup, not per request.
import type { RunAgentInput } from "@ag-ui/core";
import type { RunStore } from "@toolnexus/core";
import {
  allowedOriginsOf,
  DEFAULT_MAX_STREAMS_PER_CALLER,
  type ErrorContext,
  type StreamSlots,
  streamSlots,
  type WebAccess,
  type WebCaller,
} from "@toolnexus/web";
import {
  DEFAULT_MAX_STREAM_EVENTS,
  DEFAULT_MAX_STREAM_MS,
  DEFAULT_WAIT_FOR_RUN_MS,
} from "./follow.js";

type Awaitable<T> = T | Promise<T>;

/** What your `start` function is given: the caller and the checked RunAgentInput. */
export interface AgUiStartContext<C extends WebCaller> {
  caller: C;
  /** The RunAgentInput, checked (ids, lists within their caps); `promptOf(input)` is its prompt. */
  input: RunAgentInput;
  request: Request;
}

/** Options of {@link createAgUiHandler}. */
export interface AgUiHandlerOptions<C extends WebCaller = WebCaller> {
  /** Any RunStore with events (`readEvents`): the one your workers use. */
  store: RunStore;
  /** The caller from your own session, cookie or token; `undefined` answers 401. */
  identify: (request: Request) => Awaitable<C | undefined>;
  /**
   * Whether `caller` may `start` a run, `answer` a run's interrupt, or `follow` a run it
   * resumes. Without it nothing is allowed. A denied run looks exactly like an unknown one (404).
   */
  allow?: (caller: C, access: WebAccess) => Awaitable<boolean>;
  /**
   * Starts a toolnexus run for a RunAgentInput without `resume` (only when given, and `allow`
   * says `start`); returns its id. Start it `durable: true` so its turns are recorded as they
   * happen, and return once it is started (or queued for a worker), not when it ends.
   */
  start?: (context: AgUiStartContext<C>) => Awaitable<{ runId: string }>;
  /** The one path POSTs are taken on (e.g. `"/api/agent"`); without it, any path. */
  path?: string;
  /** Origins besides the request's own whose browsers may POST. */
  allowedOrigins?: readonly string[];
  /** The largest body read, in bytes (default {@link DEFAULT_AG_UI_MAX_BODY_BYTES}); more: 413. */
  maxBodyBytes?: number;
  /** The most AG-UI events one response streams (default 100 000); then RUN_ERROR `stream_limit`. */
  maxStreamEvents?: number;
  /**
   * The longest one response streams (ms, default 30 minutes); then RUN_ERROR `stream_limit`
   * (the run goes on; follow it again with a new request).
   */
  maxStreamMs?: number;
  /**
   * Most streams one caller holds open at once (default 16; counted in this process); one more
   * is refused `429 too_many_streams` before anything is started or recorded.
   */
  maxStreamsPerCaller?: number;
  /** How long a stream waits for a started run to appear in the store (ms, default 30 000). */
  waitForRunMs?: number;
  /** A comment line on an idle stream this often (ms, default 15 000), so proxies keep it. */
  heartbeatMs?: number;
  /** How often a stream reads again when the store gave no wake-up (ms, default 250). */
  pollMs?: number;
  /** Called with every unexpected error; the response names `errorId` and nothing else. */
  onError?: (error: unknown, context: ErrorContext) => void;
}

/** Default {@link AgUiHandlerOptions.maxBodyBytes}: 1 MiB (a RunAgentInput carries the thread). */
export const DEFAULT_AG_UI_MAX_BODY_BYTES = 1024 * 1024;
const DEFAULT_HEARTBEAT_MS = 15_000;

export interface ResolvedAgUiOptions<C extends WebCaller>
  extends Omit<AgUiHandlerOptions<C>, "allowedOrigins"> {
  allowedOrigins: ReadonlySet<string>;
  maxBodyBytes: number;
  maxStreamEvents: number;
  maxStreamMs: number;
  streams: StreamSlots;
  waitForRunMs: number;
  heartbeatMs: number;
  pollMs: number;
}

function whole(value: unknown, name: string, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min) {
    throw new TypeError(`createAgUiHandler: ${name} must be a whole number, ${min} or more`);
  }
  return value;
}

export function resolveAgUiOptions<C extends WebCaller>(
  options: AgUiHandlerOptions<C>,
): ResolvedAgUiOptions<C> {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("createAgUiHandler: pass { store, identify, allow, start }");
  }
  const { store, identify, path } = options;
  if (typeof store !== "object" || store === null || typeof store.getRun !== "function") {
    throw new TypeError("createAgUiHandler: store must be a RunStore");
  }
  if (typeof identify !== "function") {
    throw new TypeError("createAgUiHandler: identify(request) must be a function");
  }
  for (const name of ["allow", "start", "onError"] as const) {
    if (options[name] !== undefined && typeof options[name] !== "function") {
      throw new TypeError(`createAgUiHandler: ${name} must be a function`);
    }
  }
  if (
    path !== undefined &&
    (typeof path !== "string" || !/^\/[A-Za-z0-9._~!$&'()*+,;=:@/-]*$/.test(path))
  ) {
    throw new TypeError('createAgUiHandler: path must be a path such as "/api/agent"');
  }
  return {
    ...options,
    allowedOrigins: allowedOriginsOf(options.allowedOrigins, "createAgUiHandler"),
    maxBodyBytes: whole(options.maxBodyBytes, "maxBodyBytes", DEFAULT_AG_UI_MAX_BODY_BYTES),
    maxStreamMs: whole(options.maxStreamMs, "maxStreamMs", DEFAULT_MAX_STREAM_MS),
    streams: streamSlots(
      whole(options.maxStreamsPerCaller, "maxStreamsPerCaller", DEFAULT_MAX_STREAMS_PER_CALLER),
    ),
    maxStreamEvents: whole(
      options.maxStreamEvents,
      "maxStreamEvents",
      DEFAULT_MAX_STREAM_EVENTS,
      100,
    ),
    waitForRunMs: whole(options.waitForRunMs, "waitForRunMs", DEFAULT_WAIT_FOR_RUN_MS, 0),
    heartbeatMs: whole(options.heartbeatMs, "heartbeatMs", DEFAULT_HEARTBEAT_MS),
    pollMs: whole(options.pollMs, "pollMs", 250),
  };
}
