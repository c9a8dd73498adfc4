import type { Message, Usage } from "./messages.js";
import type { StopReason } from "./model.js";
import type { ToolResult } from "./result.js";
import type { Request } from "./wire.js";

/** One tool call as the run saw it. `status: "pending"` marks a suspension, not an error. */
export interface ToolCallRecord {
  id: string;
  name: string;
  args: Record<string, unknown>;
  result: ToolResult;
  status: "ok" | "error" | "pending";
  /** True when the loop stopped the call at its budget. */
  timedOut: boolean;
  /** The tool's own working time, excluding any wait for a human. */
  durationMs: number;
  /** Which execution of this call produced the result (see `ToolContext.attempt`). */
  attempt?: number;
}

interface RunResultBase {
  /** The final answer (done), the first pending prompt (pending), or the last text (incomplete). */
  text: string;
  /** The whole transcript, balanced: one tool message per tool call. */
  messages: Message[];
  /** Calls run by this run or resume, in the order they finished being recorded. */
  toolCalls: ToolCallRecord[];
  /** Model calls made so far in this run, resumes included. */
  turns: number;
  usage: Usage;
  /** The model's id. */
  model: string;
  runId: string;
  sessionId: string | undefined;
}

/**
 * The model answered without asking for more tools. Check `stopReason` before trusting `text`
 * as a whole answer: `"length"` means it was cut at the token limit, `"refusal"` and
 * `"content_filter"` that the model or the provider declined.
 */
export interface DoneResult extends RunResultBase {
  status: "done";
  /**
   * Why the model stopped on its last turn, the same for every provider: `"stop"` (a finished
   * answer), `"length"`, `"content_filter"` or `"refusal"`. Absent when the model did not say
   * (an in-process model that sets none).
   */
  stopReason?: StopReason;
  /** The provider's own stop reason for that turn, as it sent it (`"end_turn"`, `"length"`…). */
  finishReason?: string;
}

/** The run halted for a human; record the answer (`client.answer`) or `client.resume(answer)`. */
export interface PendingResult extends RunResultBase {
  status: "pending";
  /** The first suspended call's Request, in tool-call order. */
  pending: Request;
  /** Every Request the halted turn waits for. */
  pendings: Request[];
}

/** A limit stopped the run before the model answered. */
export interface IncompleteResult extends RunResultBase {
  status: "incomplete";
  limit: "maxTurns" | "timeout";
}

/** What `run`, `ask`, `resume` and a worker return; `switch` on `status`. */
export type RunResult = DoneResult | PendingResult | IncompleteResult;

/** A finished run's result as a store keeps it: `done` or `incomplete`, never `pending`. */
export type FinishedResult = DoneResult | IncompleteResult;
