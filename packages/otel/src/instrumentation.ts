import {
  type Attributes,
  type Context,
  context,
  type Exception,
  type Link,
  type Meter,
  metrics,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { extractContext, injectContext, readAskedAt, readHaltedAt } from "./carrier.js";
import {
  finalText,
  finishReason,
  inputMessages,
  json,
  outputMessages,
  systemInstructions,
} from "./content.js";
import { type Instruments, instruments } from "./metrics.js";
import { ATTR, CARRIER, EVENT, SCOPE } from "./names.js";
import type {
  OtelInstrumentation,
  TracedAnswer,
  TracedMessage,
  TracedModelResponse,
  TracedRequest,
  TracedRun,
  TracedRunInfo,
  TracedRunResult,
  TracedToolCall,
  TracedToolInfo,
  TracedToolOutcome,
  TracedToolResult,
} from "./seam.js";

/** Options of {@link otelInstrumentation}. */
export interface OtelInstrumentationOptions {
  /** The tracer spans are made with. Default: `trace.getTracer("@toolnexus/otel")` (the global provider). */
  tracer?: Tracer;
  /** The meter histograms are made with. Default: `metrics.getMeter("@toolnexus/otel")` (the global provider). */
  meter?: Meter;
  /**
   * Record prompts, model output, tool arguments and results, and suspension prompts. They may
   * hold personal data, so the default is `false`. Answers' data, `ctx.extra` and headers are
   * never recorded.
   */
  recordContent?: boolean;
  /** The `gen_ai.agent.name` to report. Default: the client's `agent`. */
  agentName?: string;
  /**
   * The `gen_ai.provider.name` to report, e.g. `"azure.ai.openai"`. Default: the provider the
   * model's adapter names (`Model.provider`), else the prefix of the model's id (`"openai"` for
   * `"openai:gpt-4o-mini"`); none when neither says.
   */
  providerName?: string;
}

/** What every run of one instrumentation shares: resolved on its first run. */
interface Telemetry {
  tracer: Tracer;
  instruments: Instruments;
  recordContent: boolean;
  agentName: string | undefined;
  providerName: string | undefined;
}

/**
 * Traces and metrics for every run of a client, following OpenTelemetry's GenAI semantic
 * conventions: an `invoke_agent` span per run (and per continuation, linked to the halted run's
 * span in any process), a `chat` span per model call and an `execute_tool` span per tool
 * execution, plus duration, token usage and human wait histograms. It uses the global tracer
 * and meter providers unless given its own, so register your OpenTelemetry SDK first.
 *
 * @example
 * const client = createClient({ model, tools, instrumentation: otelInstrumentation() });
 */
export function otelInstrumentation(options: OtelInstrumentationOptions = {}): OtelInstrumentation {
  checkOptions(options);
  let telemetry: Telemetry | undefined;
  // Resolved on the first run, not now: a meter taken from the global provider before the SDK
  // registered would stay a no-op (the metrics API has no proxy meter).
  const resolve = (): Telemetry => {
    telemetry ??= {
      tracer: options.tracer ?? trace.getTracer(SCOPE),
      instruments: instruments(options.meter ?? metrics.getMeter(SCOPE)),
      recordContent: options.recordContent === true,
      agentName: options.agentName,
      providerName: options.providerName,
    };
    return telemetry;
  };
  return {
    startRun: (info) => new RunTelemetry(resolve(), info),
  };
}

function checkOptions(options: OtelInstrumentationOptions): void {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("otelInstrumentation: options must be an object");
  }
  if (options.recordContent !== undefined && typeof options.recordContent !== "boolean") {
    throw new TypeError("otelInstrumentation: recordContent must be a boolean");
  }
  for (const key of ["agentName", "providerName"] as const) {
    const value = options[key];
    if (value !== undefined && (typeof value !== "string" || value === "")) {
      throw new TypeError(`otelInstrumentation: ${key} must be a non-empty string`);
    }
  }
  if (options.tracer !== undefined && typeof options.tracer?.startSpan !== "function") {
    throw new TypeError("otelInstrumentation: tracer must be an OpenTelemetry Tracer");
  }
  if (options.meter !== undefined && typeof options.meter?.createHistogram !== "function") {
    throw new TypeError("otelInstrumentation: meter must be an OpenTelemetry Meter");
  }
}

/**
 * `"openai:gpt-4o-mini"` -> provider `openai`, model `gpt-4o-mini` (the adapters' id format).
 * The provider named (the option, else the adapter's) wins over the id's prefix.
 */
function splitModel(
  id: string,
  providerName: string | undefined,
): { provider: string | undefined; model: string } {
  const colon = id.indexOf(":");
  if (colon <= 0 || colon === id.length - 1) return { provider: providerName, model: id };
  return { provider: providerName ?? id.slice(0, colon), model: id.slice(colon + 1) };
}

/** A name the conventions accept, or undefined (an adapter's field is not trusted blindly). */
function providerOf(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * What a throwing tool threw, as an `exception` event: always its type; its message and stack
 * only with `recordContent` (a tool's error text is its output, and may hold personal data).
 */
function exceptionOf(thrown: unknown, withContent: boolean): Exception {
  const name = thrown instanceof Error ? thrown.name || "Error" : typeof thrown;
  const code = (thrown as { code?: unknown } | null)?.code;
  const exception: Exception = { name };
  if (typeof code === "string" || typeof code === "number") exception.code = code;
  if (!withContent) return exception;
  if (thrown instanceof Error) {
    if (thrown.message !== "") exception.message = thrown.message;
    if (thrown.stack !== undefined) exception.stack = thrown.stack;
  } else {
    exception.message = String(thrown);
  }
  return exception;
}

/** A low-cardinality name for an error: its `code`, else its class name, else `_OTHER`. */
export function errorType(error: unknown): string {
  if (typeof error === "object" && error !== null) {
    const { code, name } = error as { code?: unknown; name?: unknown };
    if (typeof code === "string" && code !== "") return code;
    if (typeof name === "string" && name !== "" && name !== "Error") return name;
  }
  return "_OTHER";
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/** A suspended result's request (`metadata.pending`), read without importing core. */
function pendingOf(result: TracedToolResult): TracedRequest | undefined {
  const candidate = result.metadata?.pending;
  if (typeof candidate !== "object" || candidate === null) return undefined;
  const request = candidate as Partial<TracedRequest>;
  return typeof request.id === "string" && typeof request.kind === "string"
    ? (request as TracedRequest)
    : undefined;
}

function outcomeOf(answer: TracedAnswer): string {
  return answer.ok ? "ok" : (answer.reason ?? "declined");
}

/** Marks a span failed: status ERROR, `error.type`, and the exception unless it is a cancellation. */
function fail(span: Span, type: string, error: unknown): void {
  span.setAttribute(ATTR.errorType, type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: messageOf(error) });
  if (type !== "cancelled" && error instanceof Error) span.recordException(error);
}

/** One run's (or one continuation's) spans and measurements. */
class RunTelemetry implements TracedRun {
  private readonly span: Span;
  /** The run span's context: the explicit parent of every model and tool span. */
  private readonly ctx: Context;
  private readonly started = performance.now();
  private readonly content: boolean;
  /** Attributes every span and measurement of this run shares. */
  private readonly shared: Attributes = {};
  private readonly modelName: string;
  private readonly provider: string | undefined;
  private readonly agent: string | undefined;
  private inputTokens = 0;
  private outputTokens = 0;
  private usageSeen = false;
  /** Requests asked and not answered yet (id -> epoch ms), carried with a halted run. */
  private readonly asked = new Map<string, number>();
  /** Human waits measured, in seconds, by request id: put on the answered call's tool span. */
  private readonly waits = new Map<string, number>();
  /** The spans of the tool executions running now, by call id (for `ctx.traceCarrier`). */
  private readonly toolSpans = new Map<string, Span>();
  /**
   * A sub-agent's run: its questions are escalated and answered at a parent, which measures the
   * human's wait; this run does not count the same answer again.
   */
  private readonly escalates: boolean;
  private ended = false;

  constructor(
    private readonly telemetry: Telemetry,
    info: TracedRunInfo,
  ) {
    const { model, provider } = splitModel(
      info.model,
      telemetry.providerName ?? providerOf(info.provider),
    );
    this.escalates = info.parent !== undefined || info.carrier?.[CARRIER.escalates] === "1";
    this.modelName = model;
    this.provider = provider;
    this.agent = telemetry.agentName ?? info.agent;
    this.content = telemetry.recordContent;
    if (this.agent !== undefined) this.shared[ATTR.agentName] = this.agent;
    if (info.sessionId !== undefined) this.shared[ATTR.conversationId] = info.sessionId;

    const attributes: Attributes = {
      [ATTR.operation]: "invoke_agent",
      [ATTR.requestModel]: model,
      ...this.shared,
      [ATTR.runId]: info.runId,
      [ATTR.runKind]: info.kind,
    };
    if (provider !== undefined) attributes[ATTR.provider] = provider;
    const links: Link[] = [];
    if (info.kind === "continue" && info.carrier !== undefined) {
      const halted = extractContext(info.carrier);
      if (halted !== undefined)
        links.push({ context: halted, attributes: { [ATTR.linkType]: "continues" } });
    }
    const parent = parentContext(info);
    this.span = telemetry.tracer.startSpan(
      this.agent === undefined ? "invoke_agent" : `invoke_agent ${this.agent}`,
      { kind: SpanKind.INTERNAL, attributes, links },
      parent,
    );
    this.ctx = trace.setSpan(parent, this.span);
    if (this.content && this.span.isRecording()) recordInput(this.span, info.messages);
    if (info.kind === "continue") this.durableWaits(info);
  }

  /** A continuation: the human's wait for each answered request, from when its call suspended. */
  private durableWaits(info: TracedRunInfo): void {
    // A sub-agent's answers were relayed by its parent, where the human's wait was measured.
    if (this.escalates) return;
    const asked = readAskedAt(info.carrier);
    const haltedAt = readHaltedAt(info.carrier);
    const now = Date.now();
    for (const { request, answer } of info.pending ?? []) {
      const since = asked.get(request.id) ?? haltedAt;
      if (since === undefined) continue;
      if (answer === undefined) this.asked.set(request.id, since);
      else this.recordWait(request, answer, Math.max(0, now - since), "durable", undefined);
    }
  }

  private recordWait(
    request: TracedRequest,
    answer: TracedAnswer,
    waitedMs: number,
    mode: "in_process" | "durable",
    call: TracedToolCall | undefined,
  ): void {
    const seconds = waitedMs / 1000;
    const outcome = outcomeOf(answer);
    this.waits.set(request.id, seconds);
    const event: Attributes = {
      [ATTR.requestId]: request.id,
      [ATTR.requestKind]: request.kind,
      [ATTR.answerOutcome]: outcome,
      [ATTR.waitMode]: mode,
      [ATTR.waitDuration]: seconds,
    };
    if (call !== undefined) event[ATTR.toolCallId] = call.id;
    this.span.addEvent(EVENT.waited, event);
    const measured: Attributes = {
      [ATTR.requestKind]: request.kind,
      [ATTR.answerOutcome]: outcome,
      [ATTR.waitMode]: mode,
    };
    if (this.agent !== undefined) measured[ATTR.agentName] = this.agent;
    this.telemetry.instruments.waitDuration.record(seconds, measured);
  }

  /** Attributes of the client-side operation metrics (chat). */
  private operationAttributes(): Attributes {
    const attributes: Attributes = {
      [ATTR.operation]: "chat",
      [ATTR.requestModel]: this.modelName,
    };
    if (this.provider !== undefined) attributes[ATTR.provider] = this.provider;
    return attributes;
  }

  async model<R extends TracedModelResponse | "timeout">(
    info: { turn: number; request: { messages: readonly TracedMessage[] } },
    call: () => Promise<R>,
  ): Promise<R> {
    const attributes: Attributes = {
      ...this.operationAttributes(),
      ...this.shared,
      [ATTR.turn]: info.turn,
    };
    const span = this.telemetry.tracer.startSpan(
      `chat ${this.modelName}`,
      { kind: SpanKind.CLIENT, attributes },
      this.ctx,
    );
    if (this.content && span.isRecording()) recordInput(span, info.request.messages);
    const measured = this.operationAttributes();
    const started = performance.now();
    let response: R;
    try {
      // The model's own spans (an instrumented fetch) nest under this one.
      response = await context.with(trace.setSpan(this.ctx, span), call);
    } catch (error) {
      const type = errorType(error);
      fail(span, type, error);
      measured[ATTR.errorType] = type;
      this.telemetry.instruments.operationDuration.record(elapsed(started), measured);
      span.end();
      throw error;
    }
    if (response === "timeout") {
      span.setAttribute(ATTR.errorType, "timeout");
      span.setStatus({ code: SpanStatusCode.ERROR, message: "the run's time budget ran out" });
      measured[ATTR.errorType] = "timeout";
      this.telemetry.instruments.operationDuration.record(elapsed(started), measured);
      span.end();
      return response;
    }
    this.modelResponse(span, response as TracedModelResponse, measured);
    this.telemetry.instruments.operationDuration.record(elapsed(started), measured);
    span.end();
    return response;
  }

  private modelResponse(span: Span, response: TracedModelResponse, measured: Attributes): void {
    if (typeof response.id === "string" && response.id !== "") {
      span.setAttribute(ATTR.responseId, response.id);
    }
    if (
      typeof response.finishReason === "string" ||
      typeof response.stopReason === "string" ||
      (response.toolCalls?.length ?? 0) > 0
    ) {
      span.setAttribute(ATTR.finishReasons, [finishReason(response)]);
    }
    const { usage } = response;
    if (usage !== undefined) {
      const { promptTokens, completionTokens } = usage;
      span.setAttribute(ATTR.inputTokens, promptTokens);
      span.setAttribute(ATTR.outputTokens, completionTokens);
      this.inputTokens += promptTokens;
      this.outputTokens += completionTokens;
      this.usageSeen = true;
      const { tokenUsage } = this.telemetry.instruments;
      tokenUsage.record(promptTokens, { ...measured, [ATTR.tokenType]: "input" });
      tokenUsage.record(completionTokens, { ...measured, [ATTR.tokenType]: "output" });
    }
    if (this.content && span.isRecording()) {
      const output = outputMessages(response);
      if (output !== undefined) span.setAttribute(ATTR.outputMessages, output);
    }
  }

  async tool<O extends TracedToolOutcome>(info: TracedToolInfo, run: () => Promise<O>): Promise<O> {
    const attributes: Attributes = {
      [ATTR.operation]: "execute_tool",
      [ATTR.toolName]: info.tool,
      [ATTR.toolCallId]: info.call.id,
      [ATTR.toolType]: "function",
      ...this.shared,
      [ATTR.messageId]: info.messageId,
      [ATTR.attempt]: info.attempt,
    };
    const { answer } = info;
    if (answer !== undefined) {
      // The execution after a human answered: the human's clock, beside the tool's own.
      attributes[ATTR.requestId] = answer.id;
      attributes[ATTR.answerOutcome] = outcomeOf(answer);
      const waited = this.waits.get(answer.id);
      if (waited !== undefined) {
        attributes[ATTR.waitDuration] = waited;
        this.waits.delete(answer.id);
      }
    }
    const span = this.telemetry.tracer.startSpan(
      `execute_tool ${info.tool}`,
      { kind: SpanKind.INTERNAL, attributes },
      this.ctx,
    );
    if (this.content && span.isRecording()) {
      const args = json(info.args);
      if (args !== undefined) span.setAttribute(ATTR.toolArguments, args);
    }
    const measured: Attributes = { [ATTR.toolName]: info.tool, [ATTR.toolType]: "function" };
    if (this.agent !== undefined) measured[ATTR.agentName] = this.agent;
    const started = performance.now();
    let outcome: O;
    // Keyed like `ctx.callId`, which the tool's `traceCarrier` asks with: unique within the run
    // even when the provider reuses an id across turns.
    const key = info.call.runCallId ?? info.call.id;
    this.toolSpans.set(key, span);
    try {
      // Whatever the tool does inside `run` sees this span as the active one.
      outcome = await context.with(trace.setSpan(this.ctx, span), run);
    } catch (error) {
      this.toolSpans.delete(key);
      const type = errorType(error);
      fail(span, type, error);
      measured[ATTR.errorType] = type;
      this.telemetry.instruments.toolDuration.record(elapsed(started), measured);
      span.end();
      throw error;
    }
    this.toolSpans.delete(key);
    const type = this.toolOutcome(span, outcome);
    if (type !== undefined) measured[ATTR.errorType] = type;
    this.telemetry.instruments.toolDuration.record(outcome.durationMs / 1000, measured);
    span.end();
    return outcome;
  }

  /** Sets the tool span's status from the outcome; returns its error type, if it failed. */
  private toolOutcome(span: Span, outcome: TracedToolOutcome): string | undefined {
    const { result } = outcome;
    if (outcome.timedOut) {
      span.setAttribute(ATTR.errorType, "timeout");
      span.setStatus({ code: SpanStatusCode.ERROR, message: "the tool's time budget ran out" });
      return "timeout";
    }
    const request = pendingOf(result);
    if (request !== undefined) {
      // A suspension is not a failure: the call goes on once a human answers.
      span.setAttribute(ATTR.suspendedCall, true);
      span.setAttribute(ATTR.requestId, request.id);
      span.setAttribute(ATTR.requestKind, request.kind);
      return undefined;
    }
    if (result.isError) {
      span.setAttribute(ATTR.errorType, "tool_error");
      if (outcome.thrown !== undefined) {
        span.recordException(exceptionOf(outcome.thrown, this.content));
      }
      // The error's text is the tool's output: content, recorded only on opt-in.
      span.setStatus(
        this.content
          ? { code: SpanStatusCode.ERROR, message: result.output }
          : { code: SpanStatusCode.ERROR },
      );
      return "tool_error";
    }
    if (this.content && span.isRecording()) span.setAttribute(ATTR.toolResult, result.output);
    return undefined;
  }

  suspended(info: { call: TracedToolCall; request: TracedRequest }): void {
    const { call, request } = info;
    this.asked.set(request.id, Date.now());
    const event: Attributes = {
      [ATTR.requestId]: request.id,
      [ATTR.requestKind]: request.kind,
      [ATTR.toolCallId]: call.id,
      [ATTR.toolName]: call.name,
    };
    if (this.content) event[ATTR.requestPrompt] = request.prompt;
    this.span.addEvent(EVENT.suspended, event);
  }

  waited(info: {
    call: TracedToolCall;
    request: TracedRequest;
    waitedMs: number;
    answer: TracedAnswer;
  }): void {
    this.asked.delete(info.request.id);
    this.recordWait(info.request, info.answer, info.waitedMs, "in_process", info.call);
  }

  carrier(): Record<string, string> {
    const carrier = injectContext(this.ctx);
    carrier[CARRIER.haltedAt] = String(Date.now());
    if (this.escalates) carrier[CARRIER.escalates] = "1";
    if (this.asked.size > 0)
      carrier[CARRIER.askedAt] = JSON.stringify(Object.fromEntries(this.asked));
    return carrier;
  }

  /** A running tool's span as propagation headers: what an MCP server gets in `_meta`. */
  toolCarrier(callId: string): Record<string, string> | undefined {
    const span = this.toolSpans.get(callId);
    return span === undefined ? undefined : injectContext(trace.setSpan(this.ctx, span));
  }

  end(outcome: { result: TracedRunResult } | { error: unknown }): void {
    if (this.ended) return;
    this.ended = true;
    const { span } = this;
    const measured: Attributes = {
      [ATTR.operation]: "invoke_agent",
      [ATTR.requestModel]: this.modelName,
    };
    if (this.provider !== undefined) measured[ATTR.provider] = this.provider;
    if (this.agent !== undefined) measured[ATTR.agentName] = this.agent;
    if ("result" in outcome) {
      const { result } = outcome;
      span.setAttribute(ATTR.runStatus, result.status);
      span.setAttribute(ATTR.runTurns, result.turns);
      measured[ATTR.runStatus] = result.status;
      if (result.status === "incomplete" && typeof result.limit === "string") {
        span.setAttribute(ATTR.runLimit, result.limit);
      }
      if (result.status === "done" && this.content && span.isRecording()) {
        const output = finalText(result.text);
        if (output !== undefined) span.setAttribute(ATTR.outputMessages, output);
      }
    } else {
      const type = errorType(outcome.error);
      fail(span, type, outcome.error);
      span.setAttribute(ATTR.runStatus, "error");
      measured[ATTR.runStatus] = "error";
      measured[ATTR.errorType] = type;
    }
    if (this.usageSeen) {
      // This invocation's own model calls; a continuation does not count the halted run's again.
      span.setAttribute(ATTR.inputTokens, this.inputTokens);
      span.setAttribute(ATTR.outputTokens, this.outputTokens);
    }
    this.telemetry.instruments.agentDuration.record(elapsed(this.started), measured);
    span.end();
  }
}

/**
 * The context a run's span starts in: a sub-agent's under its parent call's span, given
 * explicitly (no context manager needed), else whatever is active.
 */
function parentContext(info: TracedRunInfo): Context {
  const active = context.active();
  const carrier = info.parent?.carrier;
  if (carrier === undefined) return active;
  const parent = extractContext(carrier);
  // The parent call runs in this process: its span context is local, not remote.
  return parent === undefined
    ? active
    : trace.setSpanContext(active, { ...parent, isRemote: false });
}

/** The system prompt and the transcript, as the conventions' two content attributes. */
function recordInput(span: Span, messages: readonly TracedMessage[]): void {
  const system = systemInstructions(messages);
  if (system !== undefined) span.setAttribute(ATTR.systemInstructions, system);
  const input = inputMessages(messages);
  if (input !== undefined) span.setAttribute(ATTR.inputMessages, input);
}

function elapsed(started: number): number {
  return (performance.now() - started) / 1000;
}
