import type { Answer } from "./wire.js";

/**
 * One progress report of a running tool call (`ctx.progress`): how far it got, out of how much
 * when that is known, and a short message for a progress bar.
 */
export interface ToolProgress {
  /** Work done so far; grows with each report (a count, a percentage, bytes…). */
  progress: number;
  /** The total `progress` will reach, when known. */
  total?: number;
  message?: string;
}

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
  /**
   * With `answer`, for an approval policy's request: who answered it, as the store recorded it
   * (`AnswerOptions.by`). A sub-agent's tool (`agentTool`) passes it on to the sub-agent's run.
   */
  answeredBy?: string;
  /** Who started the run (`RunOptions.requester`), when the host said; a sub-agent's run inherits it. */
  requester?: string;
  /**
   * On the re-execution after an answer: the `state` the suspension carried
   * (`pending({ state })`), exactly as the tool gave it, also when the run was halted durably
   * and resumed in another process. Kept in the checkpoint, never shown to the model.
   */
  resumeState?: unknown;
  /** This call's budget in milliseconds; `undefined` means not set. */
  timeout?: number;
  /** Aborts when the run is cancelled, the run's deadline passes or this call's budget runs out. */
  signal?: AbortSignal;
  /**
   * Reports how far the call got. The client emits each report as a `progress` run event
   * (with this call's `callId`) so a host can draw a progress bar; it is set only when someone
   * listens to the run, so call it as `ctx.progress?.({ progress, total })`. Reporting progress
   * never extends the call's budget.
   */
  progress?: (update: ToolProgress) => void;
  /**
   * The run's trace context as propagation headers (`traceparent`, `tracestate`, …), when the
   * client has an instrumentation that provides one; pass it on to the services the tool calls
   * (an MCP server gets it in `_meta`).
   */
  traceCarrier?: () => Record<string, string> | undefined;
}
