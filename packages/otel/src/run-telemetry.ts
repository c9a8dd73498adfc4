// One run's telemetry: its `invoke_agent` span, the `chat` and `execute_tool` spans under it,
// and the measurements, from the loop's events through the seam.
import {
  type Attributes,
  type AttributeValue,
  type Context,
  context,
  type Link,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { extractContext, injectContext, readAskedAt, readHaltedAt } from "./carrier.js";
import { finalText, finishReason, json, outputMessages } from "./content.js";
import { capAttribute, capped, cut, type Limits } from "./limits.js";
import type { Instruments } from "./metrics.js";
import { ATTR, CARRIER, EVENT } from "./names.js";
import type {
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
} from "./seam.js";

import {
  elapsed,
  errorType,
  exceptionOf,
  fail,
  outcomeOf,
  parentContext,
  pendingOf,
  providerOf,
  recordInput,
  splitModel,
} from "./span-parts.js";

/** What every run of one instrumentation shares: resolved on its first run. */
export interface Telemetry {
  tracer: Tracer;
  instruments: Instruments;
  recordContent: boolean;
  /** The caps every recorded string is cut to. */
  limits: Limits;
  agentName: string | undefined;
  providerName: string | undefined;
}

/** One run's (or one continuation's) spans and measurements. */
export class RunTelemetry implements TracedRun {
  private readonly span: Span;
  /** The run span's context: the explicit parent of every model and tool span. */
  private readonly ctx: Context;
  private readonly started = performance.now();
  private readonly content: boolean;
  private readonly limits: Limits;
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
    this.limits = telemetry.limits;
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
      this.name(this.agent === undefined ? "invoke_agent" : `invoke_agent ${this.agent}`),
      { kind: SpanKind.INTERNAL, attributes: this.cap(attributes), links },
      parent,
    );
    this.ctx = trace.setSpan(parent, this.span);
    if (this.content && this.span.isRecording()) {
      recordInput(this.span, info.messages, this.limits);
    }
    if (info.kind === "continue") this.durableWaits(info);
  }

  /** `attributes` with every string cut to its cap. */
  private cap(attributes: Attributes): Attributes {
    return capped(attributes, this.limits);
  }

  /** Sets one attribute, its strings cut to the attribute's cap. */
  private set(span: Span, key: string, value: AttributeValue): void {
    span.setAttribute(key, capAttribute(key, value, this.limits));
  }

  /** A span name (it holds a model, agent or tool name), cut to the attribute cap. */
  private name(name: string): string {
    return cut(name, this.limits.attribute);
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
    this.span.addEvent(EVENT.waited, this.cap(event));
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
      this.name(`chat ${this.modelName}`),
      { kind: SpanKind.CLIENT, attributes: this.cap(attributes) },
      this.ctx,
    );
    if (this.content && span.isRecording()) recordInput(span, info.request.messages, this.limits);
    const measured = this.operationAttributes();
    const started = performance.now();
    let response: R;
    try {
      // The model's own spans (an instrumented fetch) nest under this one.
      response = await context.with(trace.setSpan(this.ctx, span), call);
    } catch (error) {
      const type = errorType(error);
      fail(span, type, error, this.limits);
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
      this.set(span, ATTR.responseId, response.id);
    }
    if (
      typeof response.finishReason === "string" ||
      typeof response.stopReason === "string" ||
      (response.toolCalls?.length ?? 0) > 0
    ) {
      this.set(span, ATTR.finishReasons, [finishReason(response)]);
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
      const output = outputMessages(response, this.limits.content);
      if (output !== undefined) this.set(span, ATTR.outputMessages, output);
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
      this.name(`execute_tool ${info.tool}`),
      { kind: SpanKind.INTERNAL, attributes: this.cap(attributes) },
      this.ctx,
    );
    if (this.content && span.isRecording()) {
      const args = json(info.args);
      if (args !== undefined) this.set(span, ATTR.toolArguments, args);
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
      fail(span, type, error, this.limits);
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
      this.set(span, ATTR.requestId, request.id);
      this.set(span, ATTR.requestKind, request.kind);
      return undefined;
    }
    if (result.isError) {
      span.setAttribute(ATTR.errorType, "tool_error");
      if (outcome.thrown !== undefined) {
        const { content, attribute } = this.limits;
        span.recordException(
          exceptionOf(outcome.thrown, this.content ? content : undefined, attribute),
        );
      }
      // The error's text is the tool's output: content, recorded only on opt-in.
      span.setStatus(
        this.content
          ? { code: SpanStatusCode.ERROR, message: cut(result.output, this.limits.content) }
          : { code: SpanStatusCode.ERROR },
      );
      return "tool_error";
    }
    if (this.content && span.isRecording()) this.set(span, ATTR.toolResult, result.output);
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
    this.span.addEvent(EVENT.suspended, this.cap(event));
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
      this.set(span, ATTR.runStatus, result.status);
      span.setAttribute(ATTR.runTurns, result.turns);
      measured[ATTR.runStatus] = result.status;
      if (result.status === "incomplete" && typeof result.limit === "string") {
        this.set(span, ATTR.runLimit, result.limit);
      }
      if (result.status === "done" && this.content && span.isRecording()) {
        const output = finalText(result.text, this.limits.content);
        if (output !== undefined) this.set(span, ATTR.outputMessages, output);
      }
    } else {
      const type = errorType(outcome.error);
      fail(span, type, outcome.error, this.limits);
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
