// How many event streams one caller may hold open at once: each open stream holds a connection
// and a follower, so a caller opening streams without end would hold the server's.
import { WebError } from "./errors.js";

/** Counts each caller's open streams; see {@link streamSlots}. */
export interface StreamSlots {
  /**
   * Takes one of `callerId`'s slots and returns its release (safe to call more than once);
   * `429 too_many_streams` when they hold all of theirs already.
   */
  take(callerId: string): () => void;
  /** How many streams `callerId` holds open now. */
  open(callerId: string): number;
}

/** Default most streams one caller holds open at once. */
export const DEFAULT_MAX_STREAMS_PER_CALLER = 16;

/** Slots for at most `maxPerCaller` open streams per caller, in this process. */
export function streamSlots(maxPerCaller: number = DEFAULT_MAX_STREAMS_PER_CALLER): StreamSlots {
  if (!Number.isSafeInteger(maxPerCaller) || maxPerCaller < 1) {
    throw new TypeError("streamSlots: maxPerCaller must be a whole number, 1 or more");
  }
  const held = new Map<string, number>();
  return {
    take(callerId) {
      const now = held.get(callerId) ?? 0;
      if (now >= maxPerCaller) {
        throw new WebError(
          429,
          "too_many_streams",
          `you have ${maxPerCaller} streams open here already; close one first`,
        );
      }
      held.set(callerId, now + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (held.get(callerId) ?? 1) - 1;
        if (left === 0) held.delete(callerId);
        else held.set(callerId, left);
      };
    },
    open: (callerId) => held.get(callerId) ?? 0,
  };
}
