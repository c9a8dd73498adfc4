// The seam tracing and metrics plug into (`@toolnexus/otel` is one user). The loop calls these
// hooks only when an instrumentation is configured; without one, a run pays for a single check.
import {
  type Answer,
  type Message,
  type ModelRequest,
  type ModelResponse,
  type Request,
  type RunResult,
  type ToolCall,
  type ToolResult,
  thrownError,
  thrownOf,
} from "@toolnexus/core";

/** What an instrumentation learns when a run, a resume or a continuation starts. */
export interface RunTraceInfo {
  runId: string;
  sessionId: string | undefined;
  agent: string | undefined;
  /** The model's id. */
  model: string;
  /**
   * The provider the model's adapter talks to (`Model.provider`, e.g. `"openai"`), when it says;
   * OpenTelemetry's `gen_ai.provider.name`.
   */
  provider?: string;
  /** `"run"`: a fresh prompt; `"continue"`: a stored run continued (a resume, a worker). */
  kind: "run" | "continue";
  /** Continuations: what {@link RunTrace.carrier} returned when the run was last written. */
  carrier?: Record<string, string>;
  /** Continuations: the requests the halted run waited for, with the answers recorded. */
  pending?: readonly { request: Request; answer?: Answer }[];
  /** The transcript so far (for instrumentations that record prompts, when told to). */
  messages: readonly Message[];
  /**
   * Set when the run is a sub-agent's (`agentTool`), working for a call of a parent run: its
   * questions are escalated to the parent, so the human answers them at a level above.
   */
  parent?: ParentTraceInfo;
}

/** The parent call a sub-agent's run works for. */
export interface ParentTraceInfo {
  /** The parent's tool name (the agent tool). */
  tool: string;
  /** The parent call's trace context as propagation headers (its `ctx.traceCarrier`), if traced. */
  carrier?: Record<string, string>;
}

/** How one execution of a tool went. */
export interface ToolOutcome {
  result: ToolResult;
  timedOut: boolean;
  durationMs: number;
  /** When the tool threw (its result is then the error's message): what it threw. */
  thrown?: unknown;
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

/** The error result of a tool that threw `thrown`, which stays with it for the tool's trace. */
export function thrownResult(thrown: unknown, message: string): ToolResult {
  return thrownError(thrown, message);
}

/**
 * The outcome with what the tool threw, when its result came from a throw (here, in
 * `nativeTool`, or any wrapper using core's `thrownError`).
 */
export function withThrown<O extends ToolOutcome>(outcome: O): O {
  const thrown = thrownOf(outcome.result);
  return thrown === undefined ? outcome : { ...outcome, thrown };
}
