// Following a run's recorded events from any process as UI message stream chunks. The message
// is always rebuilt from the run's first event (so its ids and parts are the same on every
// stream); only the chunks of events after `after` are sent. A stream ends with the run, or at
// a suspension that shows a tool approval still waiting: `useChat` sends the person's response
// in its next request, which streams on from there.
import { followRunEvents, type RecordedRunEvent, type RunStore } from "@toolnexus/core";
import type { UIMessageChunk } from "./chunks.js";
import { createUIMessageEncoder } from "./encoder.js";

/** Options of {@link followRunAsUIMessages}. */
export interface FollowUIMessagesOptions {
  /** Send only what the events after this offset add (default 0: the whole message). */
  after?: number;
  /** Stops following; the chunks just end (no `finish`). */
  signal?: AbortSignal;
  /** How often to read again when the store gave no wake-up (ms, default 250). */
  pollMs?: number;
}

/**
 * The run's message as UI message stream chunks: `start` (its `messageId` is the run's id),
 * then each event's chunks as it is recorded, ending with `finish` (or `error` and `finish` for
 * a failed run). Throws `RunNotFoundError` when the store has no such run.
 */
export async function* followRunAsUIMessages(
  store: RunStore,
  runId: string,
  options: FollowUIMessagesOptions = {},
): AsyncGenerator<UIMessageChunk, void, undefined> {
  const after = options.after ?? 0;
  const encoder = createUIMessageEncoder(runId);
  yield { type: "start", messageId: runId };
  const events = followRunEvents(store, runId, {
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
  });
  for await (const event of events) {
    const chunks = encoder.push(event);
    if (event.offset < after) continue;
    if (event.offset === after) {
      // The stream after a person's response: when that suspension still has an approval
      // nobody answered, the person must answer it first, so this stream ends at once.
      if (await mustAnswerFirst(store, runId, event, encoder.approvals)) {
        yield* encoder.finish("tool-calls");
        return;
      }
      continue;
    }
    yield* chunks;
    if (encoder.ended) return;
    if (await mustAnswerFirst(store, runId, event, encoder.approvals)) {
      yield* encoder.finish("tool-calls");
      return;
    }
  }
}

/**
 * Whether the stream must end at `event` for the person to answer a tool approval: a
 * suspension showing one still waiting, that the run has not gone on from (a worker may have
 * continued it with other answers; it then halts again, later, on what is still waiting).
 */
async function mustAnswerFirst(
  store: RunStore,
  runId: string,
  event: RecordedRunEvent,
  approvals: readonly string[],
): Promise<boolean> {
  if (event.type !== "suspended") return false;
  let waiting = false;
  for (const id of approvals) {
    if ((await store.getRequest(id))?.state === "waiting") waiting = true;
  }
  if (!waiting) return false;
  const later = (await store.readEvents?.(runId, event.offset)) ?? [];
  return !later.some((e) => e.type === "continued");
}

/**
 * Where a stream after a person's responses starts: the earliest of the latest `suspended`
 * events that asked each of `requestIds` (a request asked again, after its run went on with
 * other answers, counts where it was asked last). `undefined` when the run asked none of them.
 */
export async function suspensionOffset(
  store: RunStore,
  runId: string,
  requestIds: readonly string[],
): Promise<number | undefined> {
  if (typeof store.readEvents !== "function") return undefined;
  const latest = new Map<string, number>();
  let after = 0;
  for (;;) {
    const page = await store.readEvents(runId, after);
    for (const event of page) {
      after = event.offset;
      const requests = event.data.requests;
      if (event.type !== "suspended" || !Array.isArray(requests)) continue;
      for (const request of requests) {
        const id = (request as { id?: unknown } | null)?.id;
        if (typeof id === "string" && requestIds.includes(id)) latest.set(id, event.offset);
      }
    }
    if (page.length === 0) break;
  }
  return latest.size === 0 ? undefined : Math.min(...latest.values());
}
