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
import type { ChatMessage } from "./chat-body.js";
import { type ChatRuns, memoryChatRuns } from "./chat-runs.js";

type Awaitable<T> = T | Promise<T>;

/** What your `start` is given for a new user message. */
export interface ChatStartContext<C extends WebCaller> {
  caller: C;
  /**
   * `useChat`'s chat id, chosen by the browser: combine it with the caller's id for the run's
   * `sessionId` (`${caller.id}:${chatId}`), so nobody starts runs in someone else's session.
   */
  chatId: string;
  /** The new user message's text (its text parts joined by blank lines). */
  prompt: string;
  /** The new user message, as sent. */
  message: ChatMessage;
  /** Every message the browser sent, the new one last (history, if you keep none yourself). */
  messages: ChatMessage[];
  /** The POST body as sent (fields your transport's `body` adds are here). */
  body: Record<string, unknown>;
  request: Request;
}

/** Options of {@link createChatHandler}. */
export interface ChatHandlerOptions<C extends WebCaller = WebCaller> {
  /** The RunStore your workers use (memory, store-sqlite, store-postgres, your own). */
  store: RunStore;
  /** The caller from your own session, cookie or token; `undefined` answers 401. */
  identify: (request: Request) => Awaitable<C | undefined>;
  /**
   * What `caller` may do, as for `@toolnexus/web`: `start` (a new user message), `answer` (a
   * tool approval, asked with the request's id and kind), `follow` (stream a run). Without it
   * nothing is allowed.
   */
  allow?: (caller: C, access: WebAccess) => Awaitable<boolean>;
  /**
   * Starts a durable run for a new user message and returns its id. It may return before the
   * run is in the store (the stream waits up to `startTimeoutMs` for it); the run may go on in
   * any process sharing the store. Throw a `WebError` to refuse with your own message.
   */
  start: (context: ChatStartContext<C>) => Awaitable<{ runId: string }>;
  /** The path `DefaultChatTransport`'s `api` names (default `"/api/chat"`). */
  api?: string;
  /** Each chat's latest run, for resuming (default: {@link memoryChatRuns}, one process). */
  chats?: ChatRuns;
  /** Origins besides the request's own whose browsers may POST. */
  allowedOrigins?: readonly string[];
  /** The largest POST body read, in bytes (default 1 MiB: the transport sends the history). */
  maxBodyBytes?: number;
  /** Most messages one POST may carry (default 1 000). */
  maxMessages?: number;
  /** Longest prompt passed to `start`, in characters (default 32 000). */
  maxPromptChars?: number;
  /** A comment line on an idle stream this often (ms, default 15 000). */
  heartbeatMs?: number;
  /** How often a stream reads again when the store gave no wake-up (ms, default 250). */
  pollMs?: number;
  /**
   * The longest one stream stays open (ms, default 30 minutes): it then ends without `finish`,
   * and `useChat`'s `resumeStream()` (or a reload) picks the run up again.
   */
  maxStreamMs?: number;
  /**
   * Most streams one caller holds open at once (default 16; counted in this process); one more
   * is refused `429 too_many_streams` before anything is started or recorded.
   */
  maxStreamsPerCaller?: number;
  /** How long a stream waits for a just-started run to appear in the store (ms, default 30 000). */
  startTimeoutMs?: number;
  /** Called with every unexpected error, with the id its response (or error chunk) names. */
  onError?: (error: unknown, context: ErrorContext) => void;
}

export const DEFAULT_CHAT_API = "/api/chat";
export const DEFAULT_CHAT_MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_MAX_MESSAGES = 1_000;
export const DEFAULT_MAX_PROMPT_CHARS = 32_000;
export const DEFAULT_MAX_STREAM_MS = 30 * 60 * 1000;
export const DEFAULT_START_TIMEOUT_MS = 30_000;

export interface ResolvedChatOptions<C extends WebCaller>
  extends Omit<ChatHandlerOptions<C>, "allowedOrigins"> {
  api: string;
  chats: ChatRuns;
  allowedOrigins: ReadonlySet<string>;
  maxBodyBytes: number;
  maxMessages: number;
  maxPromptChars: number;
  heartbeatMs: number;
  pollMs: number;
  maxStreamMs: number;
  startTimeoutMs: number;
  streams: StreamSlots;
}

function positive(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`createChatHandler: ${name} must be a whole number, 1 or more`);
  }
  return value;
}

/** Checks options when the handler is made: a mistake fails at startup, not per request. */
export function resolveChatOptions<C extends WebCaller>(
  options: ChatHandlerOptions<C>,
): ResolvedChatOptions<C> {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("createChatHandler: pass { store, identify, allow, start }");
  }
  const { store } = options;
  if (typeof store !== "object" || store === null || typeof store.getRun !== "function") {
    throw new TypeError("createChatHandler: store must be a RunStore");
  }
  if (typeof store.readEvents !== "function") {
    throw new TypeError("createChatHandler: the store must record run events (readEvents)");
  }
  for (const name of ["identify", "start"] as const) {
    if (typeof options[name] !== "function") {
      throw new TypeError(`createChatHandler: ${name} must be a function`);
    }
  }
  for (const name of ["allow", "onError"] as const) {
    if (options[name] !== undefined && typeof options[name] !== "function") {
      throw new TypeError(`createChatHandler: ${name} must be a function`);
    }
  }
  const api = (options.api ?? DEFAULT_CHAT_API).replace(/\/+$/, "");
  if (!/^\/[A-Za-z0-9._~!$&'()*+,;=:@/-]*$/.test(api)) {
    throw new TypeError('createChatHandler: api must be a path such as "/api/chat"');
  }
  const origins = allowedOriginsOf(options.allowedOrigins, "createChatHandler");
  return {
    ...options,
    api,
    chats: options.chats ?? memoryChatRuns(),
    allowedOrigins: origins,
    maxBodyBytes: positive(options.maxBodyBytes, "maxBodyBytes", DEFAULT_CHAT_MAX_BODY_BYTES),
    maxMessages: positive(options.maxMessages, "maxMessages", DEFAULT_MAX_MESSAGES),
    maxPromptChars: positive(options.maxPromptChars, "maxPromptChars", DEFAULT_MAX_PROMPT_CHARS),
    heartbeatMs: positive(options.heartbeatMs, "heartbeatMs", 15_000),
    pollMs: positive(options.pollMs, "pollMs", 250),
    maxStreamMs: positive(options.maxStreamMs, "maxStreamMs", DEFAULT_MAX_STREAM_MS),
    startTimeoutMs: positive(options.startTimeoutMs, "startTimeoutMs", DEFAULT_START_TIMEOUT_MS),
    streams: streamSlots(
      positive(options.maxStreamsPerCaller, "maxStreamsPerCaller", DEFAULT_MAX_STREAMS_PER_CALLER),
    ),
  };
}
