import { type Message, ToolnexusError } from "@toolnexus/core";

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

/** The run's `signal` was aborted. In-flight tools saw their signals abort; `messages` is kept. */
export class RunCancelledError extends RunError {
  constructor(messages: Message[], runId: string, reason: unknown) {
    super(
      "cancelled",
      `run ${runId} was cancelled${reason instanceof Error && reason.message ? `: ${reason.message}` : ""}`,
      messages,
      runId,
      reason,
    );
  }
}
