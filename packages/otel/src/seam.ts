// The parts of `@toolnexus/client`'s instrumentation seam this package reads, declared here
// structurally instead of imported. The client's `Instrumentation` accepts what
// `otelInstrumentation()` returns (a type test checks it), while this package carries no
// dependency on the client at all, not even a peer one: a peer dependency on a package of the
// same fixed release group would make every client release a major release of this one.

/** A transcript message, as far as recording content needs it. */
export interface TracedMessage {
  role: string;
  content: string;
  /** Assistant messages: the tool calls the model asked for. */
  toolCalls?: readonly TracedToolCall[];
  /** Tool messages: the call they answer. */
  callId?: string;
}

/** A tool call the model asked for. */
export interface TracedToolCall {
  id: string;
  /** The call's id within its run (`ctx.callId`) when the provider's `id` repeated an earlier turn's. */
  runCallId?: string;
  name: string;
  args: Record<string, unknown>;
}

/** A tool's question to a human. Only its id and kind are recorded (its prompt on opt-in). */
export interface TracedRequest {
  id: string;
  kind: string;
  prompt: string;
}

/** A human's answer. Only whether it was ok (and why not) is recorded, never its data. */
export interface TracedAnswer {
  id: string;
  ok: boolean;
  reason?: string;
}

/** Token counts of one model call. */
export interface TracedUsage {
  promptTokens: number;
  completionTokens: number;
}

/** One model response. */
export interface TracedModelResponse {
  id?: string;
  text: string;
  toolCalls: readonly TracedToolCall[];
  usage?: TracedUsage;
  /** The provider's own stop reason. */
  finishReason?: string;
  /** The stop reason normalized across providers (`stop`, `tool_calls`, `length`, ...). */
  stopReason?: string;
}

/** What a tool returned. */
export interface TracedToolResult {
  output: string;
  isError: boolean;
  metadata?: Record<string, unknown>;
}

/** How one execution of a tool went. */
export interface TracedToolOutcome {
  result: TracedToolResult;
  timedOut: boolean;
  durationMs: number;
  /** When the tool threw (its result is the error's message): what it threw. */
  thrown?: unknown;
}

/** One tool execution, as the loop describes it. */
export interface TracedToolInfo {
  call: TracedToolCall;
  tool: string;
  messageId: string;
  args: Record<string, unknown>;
  attempt: number;
  /** Set on the execution after a human answered. */
  answer?: TracedAnswer;
}

/** How a run (or this continuation of it) ended, when it returned a result. */
export interface TracedRunResult {
  status: string;
  text: string;
  turns: number;
  /** `incomplete` results: which limit stopped the run. */
  limit?: string;
}

/** What the loop says when a run, a resume or a continuation starts. */
export interface TracedRunInfo {
  runId: string;
  sessionId: string | undefined;
  agent: string | undefined;
  model: string;
  /** The provider the model's adapter names (`gen_ai.provider.name`), when it does. */
  provider?: string;
  kind: "run" | "continue";
  carrier?: Record<string, string>;
  pending?: readonly { request: TracedRequest; answer?: TracedAnswer }[];
  messages: readonly TracedMessage[];
  /** A sub-agent's run: the parent call it works for, whose questions a human answers above. */
  parent?: TracedParent;
}

/** The parent call of a sub-agent's run. */
export interface TracedParent {
  /** The parent's agent tool. */
  tool: string;
  /** The parent call's trace context as propagation headers: the sub-agent's spans nest under it. */
  carrier?: Record<string, string>;
}

/** One run's tracing: the client's `RunTrace`. */
export interface TracedRun {
  model<R extends TracedModelResponse | "timeout">(
    info: { turn: number; request: { messages: readonly TracedMessage[] } },
    call: () => Promise<R>,
  ): Promise<R>;
  tool<O extends TracedToolOutcome>(info: TracedToolInfo, run: () => Promise<O>): Promise<O>;
  suspended(info: { call: TracedToolCall; request: TracedRequest }): void;
  waited(info: {
    call: TracedToolCall;
    request: TracedRequest;
    waitedMs: number;
    answer: TracedAnswer;
  }): void;
  carrier(): Record<string, string> | undefined;
  toolCarrier(callId: string): Record<string, string> | undefined;
  end(outcome: { result: TracedRunResult } | { error: unknown }): void;
}

/**
 * What `otelInstrumentation()` returns: an `Instrumentation` for `createClient` from
 * `@toolnexus/client`.
 */
export interface OtelInstrumentation {
  startRun(info: TracedRunInfo): TracedRun;
}
