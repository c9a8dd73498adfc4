import type { Answer } from "./wire.js";

/**
 * What a tool receives as the second argument of `execute`: the call's identity, its time
 * budget, a cancellation signal and, on a re-execution after a suspension, the human's answer.
 *
 * Every field is optional because a tool can be called directly (`tool.execute(args)`) as well
 * as by the client loop, which fills in all of them. Read `timeout` as "unset" when it is
 * `undefined` and fall back to your own default; it is never `0` for "no limit".
 */
export interface ToolContext {
  /** The conversation this call belongs to (the run's `sessionId`). */
  sessionId?: string;
  /** The id of the assistant message that asked for this call; shared by calls of one turn. */
  messageId?: string;
  /** Which agent is calling; useful when several agents share tools. */
  agent?: string;
  /** This tool call: the provider's id, or one the loop generated (unique within the run). */
  callId?: string;
  /**
   * The run this call belongs to. `runId` + `callId` is the idempotency key of a side effect:
   * when a worker dies mid-call, the call runs again with the same pair and a higher `attempt`.
   */
  runId?: string;
  /**
   * Which execution of this call this is: 1 the first time it runs (and again 1 the first time
   * it runs with a human's answer); 2 or more when a durable run was taken over after its
   * worker died, meaning an earlier execution may have started and its result was not journaled.
   */
  attempt?: number;
  /** Host-supplied state, passed through untouched (client-level merged with run-level). */
  extra?: Record<string, unknown>;
  /** Present only on the re-execution after a suspension this call raised was answered. */
  answer?: Answer;
  /** This call's budget in milliseconds; `undefined` means not set. */
  timeout?: number;
  /** Aborts when the run is cancelled, the run's deadline passes or this call's budget runs out. */
  signal?: AbortSignal;
}
