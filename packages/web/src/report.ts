// An unexpected error (a bug, a store failure) goes to the host's log under a fresh id; the
// response names only that id, so no message, stack or secret reaches the caller.
import type { ErrorContext } from "./options.js";

/** The host's error hook, as every handler built on this package takes it. */
export type OnError = ((error: unknown, context: ErrorContext) => void) | undefined;

/**
 * Hands `error` to `onError` (or `console.error`, prefixed with `label`) under a fresh
 * `err_…` id and returns that id. A throwing hook is swallowed: it must not crash the response.
 */
export function reportError(
  onError: OnError,
  label: string,
  request: Request,
  error: unknown,
): string {
  const errorId = `err_${globalThis.crypto.randomUUID().replace(/-/g, "")}`;
  try {
    if (onError) onError(error, { errorId, request });
    else console.error(`${label}: ${errorId}`, error);
  } catch {
    // A failing hook must not turn a 500 into a crash.
  }
  return errorId;
}
