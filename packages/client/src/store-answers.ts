// Waiting durably on a run store for the answers to a halt's requests: `store.answer` records
// them, from this process or any other; a request whose deadline passes unanswered is answered
// expired. Wakes on the store's `subscribe` when it has one, else polls, backing off to a second.
import {
  type Answer,
  type AwaitedRequest,
  expiredAnswer,
  type RunStore,
  ToolnexusError,
} from "@toolnexus/core";

/** Resolves with the answers recorded so far (at least one), or the expiries that are due. */
export async function waitForAnswers(
  store: RunStore,
  requests: readonly AwaitedRequest[],
  signal?: AbortSignal,
): Promise<Answer[]> {
  if (requests.length === 0) {
    throw new ToolnexusError("answers_mismatch", "answers: there is no request to wait for");
  }
  let pause = 10;
  for (;;) {
    signal?.throwIfAborted();
    const found: Answer[] = [];
    const now = Date.now();
    let nearest = Number.POSITIVE_INFINITY;
    for (const awaited of requests) {
      const info = await store.getRequest(awaited.request.id);
      if (info?.answer !== undefined) {
        found.push(info.answer);
        continue;
      }
      const deadline = awaited.deadline ?? info?.expiresAt;
      const at = deadline === undefined ? Number.NaN : Date.parse(deadline);
      if (info?.state === "expired" || at <= now) found.push(expiredAnswer(awaited));
      else if (at < nearest) nearest = at;
    }
    if (found.length > 0) return found;
    await sleep(Math.min(pause, nearest - now), signal, store.subscribe?.bind(store));
    pause = Math.min(1000, pause * 2);
  }
}

/** Sleeps `ms`, or less: until `signal` aborts or the store says a run may have moved on. */
export function sleep(
  ms: number,
  signal: AbortSignal | undefined,
  wake: ((onReady: () => void) => () => void) | undefined,
): Promise<void> {
  return new Promise((resolve) => {
    let unsubscribe: (() => void) | undefined;
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      unsubscribe?.();
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
    unsubscribe = wake?.(done);
  });
}
