// The small pieces a run's spans are made of: names, errors, outcomes and parents, each read
// from what the loop hands over (never trusted blindly), kept apart from the span lifecycle.
import {
  type Context,
  context,
  type Exception,
  type Span,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { extractContext } from "./carrier.js";
import { inputMessages, systemInstructions } from "./content.js";
import { cut, type Limits } from "./limits.js";
import { ATTR } from "./names.js";
import type {
  TracedAnswer,
  TracedMessage,
  TracedRequest,
  TracedRunInfo,
  TracedToolResult,
} from "./seam.js";

/**
 * `"openai:gpt-4o-mini"` -> provider `openai`, model `gpt-4o-mini` (the adapters' id format).
 * The provider named (the option, else the adapter's) wins over the id's prefix.
 */
export function splitModel(
  id: string,
  providerName: string | undefined,
): { provider: string | undefined; model: string } {
  const colon = id.indexOf(":");
  if (colon <= 0 || colon === id.length - 1) return { provider: providerName, model: id };
  return { provider: providerName ?? id.slice(0, colon), model: id.slice(colon + 1) };
}

/** A name the conventions accept, or undefined (an adapter's field is not trusted blindly). */
export function providerOf(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * What was thrown, as an `exception` event: always its type (its `code`, else its name), cut to
 * `typeCap`; its message and stack cut to `messageCap`, and only when that is given (a tool's
 * error text is its output: content, recorded only with `recordContent`).
 */
export function exceptionOf(
  thrown: unknown,
  messageCap: number | undefined,
  typeCap: number,
): Exception {
  const name = thrown instanceof Error ? thrown.name || "Error" : typeof thrown;
  const code = (thrown as { code?: unknown } | null)?.code;
  const exception: Exception = { name: cut(name, typeCap) };
  if (typeof code === "string") exception.code = cut(code, typeCap);
  else if (typeof code === "number") exception.code = code;
  if (messageCap === undefined) return exception;
  if (thrown instanceof Error) {
    if (thrown.message !== "") exception.message = cut(thrown.message, messageCap);
    if (thrown.stack !== undefined) exception.stack = cut(String(thrown.stack), messageCap);
  } else {
    exception.message = cut(String(thrown), messageCap);
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

export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/** A suspended result's request (`metadata.pending`), read without importing core. */
export function pendingOf(result: TracedToolResult): TracedRequest | undefined {
  const candidate = result.metadata?.pending;
  if (typeof candidate !== "object" || candidate === null) return undefined;
  const request = candidate as Partial<TracedRequest>;
  return typeof request.id === "string" && typeof request.kind === "string"
    ? (request as TracedRequest)
    : undefined;
}

export function outcomeOf(answer: TracedAnswer): string {
  return answer.ok ? "ok" : (answer.reason ?? "declined");
}

/**
 * Marks a span failed: status ERROR, `error.type`, and the exception unless it is a cancellation,
 * every string cut to the attribute cap.
 */
export function fail(span: Span, type: string, error: unknown, limits: Limits): void {
  span.setAttribute(ATTR.errorType, cut(type, limits.attribute));
  span.setStatus({ code: SpanStatusCode.ERROR, message: cut(messageOf(error), limits.attribute) });
  if (type !== "cancelled" && error instanceof Error) {
    span.recordException(exceptionOf(error, limits.attribute, limits.attribute));
  }
}

/**
 * The context a run's span starts in: a sub-agent's under its parent call's span, given
 * explicitly (no context manager needed), else whatever is active.
 */
export function parentContext(info: TracedRunInfo): Context {
  const active = context.active();
  const carrier = info.parent?.carrier;
  if (carrier === undefined) return active;
  const parent = extractContext(carrier);
  // The parent call runs in this process: its span context is local, not remote.
  return parent === undefined
    ? active
    : trace.setSpanContext(active, { ...parent, isRemote: false });
}

/**
 * The system prompt and the transcript, as the conventions' two content attributes, each within
 * the content cap; how many of the oldest messages were left out to fit, when any were.
 */
export function recordInput(span: Span, messages: readonly TracedMessage[], limits: Limits): void {
  const system = systemInstructions(messages, limits.content);
  if (system !== undefined) {
    span.setAttribute(ATTR.systemInstructions, cut(system, limits.content));
  }
  const input = inputMessages(messages, limits.content);
  if (input === undefined) return;
  span.setAttribute(ATTR.inputMessages, cut(input.text, limits.content));
  if (input.omitted > 0) span.setAttribute(ATTR.inputMessagesOmitted, input.omitted);
}

export function elapsed(started: number): number {
  return (performance.now() - started) / 1000;
}
