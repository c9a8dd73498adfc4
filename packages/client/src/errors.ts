import { type CancelInfo, type Message, ToolnexusError } from "@toolnexus/core";

/**
 * A run that could not go on: the model call failed, or a store failed. `messages` holds the
 * transcript up to the failure, so nothing is lost.
 */
export class RunError extends ToolnexusError {
  readonly messages: Message[];
  readonly runId: string;
  constructor(code: string, message: string, messages: Message[], runId: string, cause?: unknown) {
    super(code, message, { cause });
    this.messages = messages;
    this.runId = runId;
  }
}

/** A thrown value as a line of text: an error's message (or name), anything else as a string. */
export function messageOf(thrown: unknown): string {
  if (thrown instanceof Error) return thrown.message || thrown.name;
  return String(thrown);
}

/** "by bob: changed my mind", or "" when nobody said. */
function whoAndWhy(cancel: CancelInfo): string {
  const by = cancel.by === undefined ? "" : ` by ${cancel.by}`;
  return cancel.reason === undefined ? by : `${by}: ${cancel.reason}`;
}

/**
 * The run was stopped: its `signal` was aborted, or someone cancelled it through the store
 * (`client.cancel`), and then `cancel` says who, why and when. In-flight tools saw their
 * signals abort; `messages` is kept.
 */
export class RunCancelledError extends RunError {
  readonly cancel: CancelInfo | undefined;
  constructor(messages: Message[], runId: string, reason: unknown, cancel?: CancelInfo) {
    super(
      "cancelled",
      cancel !== undefined
        ? `run ${runId} was cancelled${whoAndWhy(cancel)}`
        : `run ${runId} was cancelled${reason instanceof Error && reason.message ? `: ${reason.message}` : ""}`,
      messages,
      runId,
      reason,
    );
    this.cancel = cancel;
  }
}

/**
 * The abort reason a durable run's tools see (`ctx.signal.reason`) when someone cancelled the
 * run through the store: `cancel` says who, why and when.
 */
export class CancelRequestedError extends ToolnexusError {
  readonly runId: string;
  readonly cancel: CancelInfo;
  constructor(runId: string, cancel: CancelInfo) {
    super("cancel_requested", `run ${runId} was cancelled${whoAndWhy(cancel)}`);
    this.runId = runId;
    this.cancel = cancel;
  }
}
