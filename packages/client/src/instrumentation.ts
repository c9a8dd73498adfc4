// The seam tracing and metrics plug into (`@toolnexus/otel` is one user). The loop calls these
// hooks only when an instrumentation is configured; without one, a run pays for a single check.
import type {
  Answer,
  Message,
  ModelRequest,
  ModelResponse,
  Request,
  RunResult,
  ToolCall,
  ToolResult,
} from "@toolnexus/core";

/** What an instrumentation learns when a run, a resume or a continuation starts. */
export interface RunTraceInfo {
  runId: string;
  sessionId: string | undefined;
  agent: string | undefined;
  /** The model's id. */
  model: string;
  /** `"run"`: a fresh prompt; `"continue"`: a stored run continued (a resume, a worker). */
  kind: "run" | "continue";
  /** Continuations: what {@link RunTrace.carrier} returned when the run was last written. */
  carrier?: Record<string, string>;
  /** Continuations: the requests the halted run waited for, with the answers recorded. */
  pending?: readonly { request: Request; answer?: Answer }[];
  /** The transcript so far (for instrumentations that record prompts, when told to). */
  messages: readonly Message[];
}

/** How one execution of a tool went. */
export interface ToolOutcome {
  result: ToolResult;
  timedOut: boolean;
  durationMs: number;
}

/** What an instrumentation learns about one tool execution. */
export interface ToolTraceInfo {
  call: ToolCall;
  tool: string;
  messageId: string;
  args: Record<string, unknown>;
  attempt: number;
  /** Set on the execution after a human answered. */
  answer?: Answer;
}

/** One run's instrumentation, from its start to its end. */
export interface RunTrace {
  /** Wraps one model call; `call` resolves with the response, or `"timeout"` when the run's own deadline stopped it. */
  model(
    info: { turn: number; request: ModelRequest },
    call: () => Promise<ModelResponse | "timeout">,
  ): Promise<ModelResponse | "timeout">;
  /**
   * Wraps one execution of a tool. Whatever context `run` is called in is the tool's: an
   * instrumentation that makes its span active there has the tool's own spans nest under it.
   */
  tool(info: ToolTraceInfo, run: () => Promise<ToolOutcome>): Promise<ToolOutcome>;
  /** A call suspended for a human (in-process or by halting the run). */
  suspended(info: { call: ToolCall; request: Request }): void;
  /** A human answered in-process (`waitFor`): how long they took, apart from the tool's own time. */
  waited(info: { call: ToolCall; request: Request; waitedMs: number; answer: Answer }): void;
  /** What to store with the run when it is written, to link its continuation (any process). */
  carrier(): Record<string, string> | undefined;
  /**
   * The trace context of one running tool execution (its span), as propagation headers, for the
   * services the tool calls (`ctx.traceCarrier`); `undefined` falls back to {@link carrier}.
   */
  toolCarrier?(callId: string): Record<string, string> | undefined;
  /** The run (or this continuation of it) ended: a result (done, pending, incomplete) or an error. */
  end(outcome: { result: RunResult } | { error: unknown }): void;
}

/** Plugs tracing or metrics into every run of a client (`createClient({ instrumentation })`). */
export interface Instrumentation {
  startRun(info: RunTraceInfo): RunTrace;
}

/** Ends the run's trace with the outcome of `work`, whatever it is. */
export function traced(trace: RunTrace | undefined, work: Promise<RunResult>): Promise<RunResult> {
  if (trace === undefined) return work;
  return work.then(
    (result) => {
      trace.end({ result });
      return result;
    },
    (error: unknown) => {
      trace.end({ error });
      throw error;
    },
  );
}
