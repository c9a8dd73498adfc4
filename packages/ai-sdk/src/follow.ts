// Following a run's recorded events from any process as UI message stream chunks. The message
// is always rebuilt from the run's first event (so its ids and parts are the same on every
// stream); only the chunks of events after `after` are sent. A stream ends with the run, or at
// a suspension that shows a tool approval still waiting: `useChat` sends the person's response
// in its next request, which streams on from there.
import { followRunEvents, type RunStore } from "@toolnexus/core";
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
    if (event.offset <= after) continue;
    yield* chunks;
    if (encoder.ended) return;
    if (event.type === "suspended" && (await anyWaiting(store, encoder.approvals))) {
      yield* encoder.finish("tool-calls");
      return;
    }
  }
}

async function anyWaiting(store: RunStore, requestIds: readonly string[]): Promise<boolean> {
  for (const id of requestIds) {
    if ((await store.getRequest(id))?.state === "waiting") return true;
  }
  return false;
}

/**
 * The offset of the latest `suspended` event of the run that asked `requestId`: a stream after
 * the person's response starts after it. `undefined` when the run never asked it.
 */
export async function suspensionOffset(
  store: RunStore,
  runId: string,
  requestId: string,
): Promise<number | undefined> {
  if (typeof store.readEvents !== "function") return undefined;
  let found: number | undefined;
  let after = 0;
  for (;;) {
    const page = await store.readEvents(runId, after);
    for (const event of page) {
      after = event.offset;
      const requests = event.data.requests;
      if (
        event.type === "suspended" &&
        Array.isArray(requests) &&
        requests.some((r) => (r as { id?: unknown } | null)?.id === requestId)
      ) {
        found = event.offset;
      }
    }
    if (page.length === 0) return found;
  }
}
