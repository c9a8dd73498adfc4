// A run followed as a UI message stream response: SSE frames of chunks, the protocol's header,
// `data: [DONE]` at the end. Every way a stream can stop is bounded: the run ends, an approval
// waits for the person, the client goes away, or the stream reaches `maxStreamMs`.
import { type RunInfo, RunNotFoundError, type RunStore } from "@toolnexus/core";
import { sseResponse } from "@toolnexus/web";
import {
  chunkFrame,
  DONE_FRAME,
  UI_MESSAGE_STREAM_HEADERS,
  type UIMessageChunk,
} from "./chunks.js";
import { followRunAsUIMessages } from "./follow.js";

/** Options of {@link uiMessageStreamResponse}. */
export interface UIMessageStreamResponseOptions {
  store: RunStore;
  runId: string;
  /** Send what the events after this offset add (default 0: the whole message). */
  after?: number;
  /** The request's signal: the client went away. */
  signal: AbortSignal;
  /** Called once when the stream ends, however it ends (a stream slot's release). */
  onClose?: () => void;
  /** Wait this long for the run to appear in the store (a run just started), ms (default 0). */
  waitForRunMs?: number;
  heartbeatMs?: number;
  pollMs?: number;
  /** The longest the stream stays open, ms (default 30 minutes). */
  maxStreamMs?: number;
  /**
   * An unexpected error while following (a store failure): return the id your log keeps it
   * under; the stream then says only that id (as an `error` chunk) and ends.
   */
  onError: (error: unknown) => string;
}

/** Whether the caller may see `run`: asked once the run is in the store, before any chunk of it. */
export type MayFollow = (run: RunInfo) => Promise<boolean>;

/** The run's message (or what the events after `after` add to it) as a `200` UI message stream. */
export function uiMessageStreamResponse(options: UIMessageStreamResponseOptions): Response {
  return streamResponse(options);
}

/**
 * {@link uiMessageStreamResponse} for the handler: once the run is in the store, `mayFollow`
 * decides whether the caller sees anything of it (when not: the same error chunk as for a run
 * that never reached the store).
 */
export function streamResponse(
  options: UIMessageStreamResponseOptions & { mayFollow?: MayFollow },
): Response {
  return sseResponse({
    // The signal sseResponse hands over also fires when the host only cancels the body.
    frames: (gone) => frames({ ...options, signal: gone }),
    signal: options.signal,
    heartbeatMs: options.heartbeatMs ?? 15_000,
    preamble: ": toolnexus\n\n",
    headers: UI_MESSAGE_STREAM_HEADERS,
    ...(options.onClose === undefined ? {} : { onClose: options.onClose }),
    // frames() turns its own errors into error chunks: whatever reaches here is a write failure.
    onError: (error) => void options.onError(error),
  });
}

async function* frames(
  options: UIMessageStreamResponseOptions & { mayFollow?: MayFollow },
): AsyncGenerator<string> {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  options.signal.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(() => stop.abort(), options.maxStreamMs ?? 30 * 60 * 1000);
  const pollMs = options.pollMs ?? 250;
  try {
    let shown: "yes" | "absent" | "denied";
    try {
      const run = await runAppears(
        options.store,
        options.runId,
        options.waitForRunMs ?? 0,
        pollMs,
        stop.signal,
      );
      shown =
        run === undefined
          ? "absent"
          : options.mayFollow === undefined || (await options.mayFollow(run))
            ? "yes"
            : "denied";
    } catch (error) {
      if (stop.signal.aborted) return;
      yield* errorFrames(options.runId, failedText(options, error));
      return;
    }
    if (shown === "absent") {
      if (stop.signal.aborted) return;
      yield* errorFrames(options.runId, "the run did not start: it is not in the store");
      return;
    }
    if (shown === "denied") {
      yield* errorFrames(
        options.runId,
        "the run did not start: it is not in the store (or it is not yours to see)",
      );
      return;
    }
    const chunks = followRunAsUIMessages(options.store, options.runId, {
      after: options.after ?? 0,
      signal: stop.signal,
      pollMs,
    });
    try {
      for await (const chunk of chunks) yield chunkFrame(chunk);
    } catch (error) {
      if (stop.signal.aborted) return;
      const text =
        error instanceof RunNotFoundError
          ? "the run is no longer in the store"
          : failedText(options, error);
      yield chunkFrame({ type: "error", errorText: text });
      return;
    }
    if (!stop.signal.aborted) yield DONE_FRAME;
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener("abort", onAbort);
  }
}

/** An unexpected error's text: only the id the log keeps it under. */
function failedText(options: UIMessageStreamResponseOptions, error: unknown): string {
  return `the server failed while following the run; its log has the error under ${options.onError(error)}`;
}

function* errorFrames(runId: string, errorText: string): Generator<string> {
  const chunks: UIMessageChunk[] = [
    { type: "start", messageId: runId },
    { type: "error", errorText },
    { type: "finish", finishReason: "error" },
  ];
  for (const chunk of chunks) yield chunkFrame(chunk);
  yield DONE_FRAME;
}

/** The run, when it is (or within `waitMs` comes to be) in the store. */
async function runAppears(
  store: RunStore,
  runId: string,
  waitMs: number,
  pollMs: number,
  signal: AbortSignal,
): Promise<RunInfo | undefined> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const run = await store.getRun(runId);
    if (run !== undefined) return run;
    if (signal.aborted || Date.now() >= deadline) return undefined;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, Math.min(pollMs, Math.max(1, deadline - Date.now())));
      signal.addEventListener("abort", done, { once: true });
    });
  }
}
