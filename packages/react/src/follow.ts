// Follows a run's recorded events through `GET /runs/:id/events`, reconnecting from the last
// offset seen (so each event arrives once), until a terminal event or the signal aborts.
import type { RunEventType } from "@toolnexus/core";
import { fetchOf, initOf, urlOf } from "./api.js";
import type { ToolnexusConfig } from "./config.js";
import { ToolnexusHttpError } from "./errors.js";
import { readSse } from "./sse.js";

/** One recorded run event as the stream sends it. */
export interface RunEventMessage {
  /** 1, 2, 3… within the run. */
  offset: number;
  /** ISO time it was recorded. */
  at: string;
  type: RunEventType;
  data: Record<string, unknown>;
}

/** The events after which a run records nothing more. */
export const TERMINAL_EVENT_TYPES: ReadonlySet<string> = new Set(["done", "failed", "cancelled"]);

export interface FollowOptions {
  /** Start after this offset (default 0: from the first event). */
  after?: number;
  signal: AbortSignal;
  onEvent: (event: RunEventMessage) => void;
  /** Called with `true` when a connection is open, `false` when it dropped and will be retried. */
  onConnection?: (open: boolean) => void;
  /** The longest wait between reconnects (default 10 s); the first wait is 500 ms. */
  maxRetryMs?: number;
}

/**
 * Resolves `"ended"` after a terminal event, `"aborted"` when the signal aborts. Network errors
 * and 5xx answers are retried with backoff; any other refusal (401, 404…) throws a
 * {@link ToolnexusHttpError}, since trying again would not change it.
 */
export async function followRunEvents(
  config: ToolnexusConfig,
  runId: string,
  options: FollowOptions,
): Promise<"ended" | "aborted"> {
  const { signal } = options;
  let after = options.after ?? 0;
  let wait = 500;
  const maxWait = options.maxRetryMs ?? 10_000;
  while (!signal.aborted) {
    let ended = false;
    try {
      const path = `/runs/${encodeURIComponent(runId)}/events?after=${after}`;
      const response = await fetchOf(config)(urlOf(config, path), {
        ...initOf(config, { accept: "text/event-stream" }),
        signal,
      });
      if (!response.ok) {
        let body: unknown;
        try {
          body = await response.json();
        } catch {
          body = undefined;
        }
        const error = new ToolnexusHttpError(response.status, body);
        if (response.status < 500) throw error;
        throw Object.assign(error, { retry: true });
      }
      const { body } = response;
      if (body === null) throw Object.assign(new Error("no body"), { retry: true });
      try {
        options.onConnection?.(true);
        wait = 500;
        // Stops at the terminal event itself, not when the server gets round to closing. A
        // throw from `onEvent` or a broken message reconnects: readSse cancels this body first.
        await readSse(
          body,
          (message) => {
            const event = eventOf(message.event, message.data);
            if (event === undefined || event.offset <= after) return false;
            after = event.offset;
            options.onEvent(event);
            ended = TERMINAL_EVENT_TYPES.has(event.type);
            return ended;
          },
          signal,
        );
      } finally {
        // Not read at all when `onConnection` threw: its connection must not stay open either.
        if (!body.locked) await body.cancel().catch(() => {});
      }
    } catch (error) {
      if (signal.aborted) return "aborted";
      if (error instanceof ToolnexusHttpError && !(error as { retry?: boolean }).retry) throw error;
    }
    if (ended) return "ended";
    if (signal.aborted) break;
    options.onConnection?.(false);
    await sleep(wait, signal);
    wait = Math.min(wait * 2, maxWait);
  }
  return "aborted";
}

function eventOf(type: string, data: string): RunEventMessage | undefined {
  try {
    const parsed = JSON.parse(data) as { offset?: unknown; at?: unknown; data?: unknown };
    if (typeof parsed.offset !== "number" || typeof parsed.at !== "string") return undefined;
    const body =
      typeof parsed.data === "object" && parsed.data !== null && !Array.isArray(parsed.data)
        ? (parsed.data as Record<string, unknown>)
        : {};
    return { offset: parsed.offset, at: parsed.at, type: type as RunEventType, data: body };
  } catch {
    return undefined;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
