// The carrier stored with a durable run: the run span's trace context (so a continuation in any
// process can link to it) and when its calls suspended (so the human's wait can be measured).
import {
  type Context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  type SpanContext,
  trace,
} from "@opentelemetry/api";
import { CARRIER } from "./names.js";

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;

/**
 * Writes `ctx`'s span into a fresh carrier with the globally configured propagator, and makes
 * sure a W3C `traceparent` is there even when no propagator is configured (the API's default
 * propagator writes nothing), so the link survives whatever the continuing process set up.
 */
export function injectContext(ctx: Context): Record<string, string> {
  let carrier: Record<string, string> = {};
  try {
    propagation.inject(ctx, carrier);
  } catch {
    // A broken propagator must not fail the run's checkpoint; the traceparent below suffices.
    carrier = {};
  }
  if (carrier[CARRIER.traceparent] === undefined) {
    const spanContext = trace.getSpanContext(ctx);
    if (spanContext !== undefined && isSpanContextValid(spanContext)) {
      carrier[CARRIER.traceparent] = traceparent(spanContext);
    }
  }
  return carrier;
}

/** The span context a carrier holds: through the configured propagator, else its `traceparent`. */
export function extractContext(carrier: Record<string, string>): SpanContext | undefined {
  try {
    const extracted = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, carrier));
    if (extracted !== undefined && isSpanContextValid(extracted)) return extracted;
  } catch {
    // A broken propagator must not stop the continuation; read the traceparent ourselves.
  }
  return parseTraceparent(carrier[CARRIER.traceparent]);
}

export function traceparent(spanContext: SpanContext): string {
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, "0");
  return `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
}

export function parseTraceparent(value: string | undefined): SpanContext | undefined {
  if (typeof value !== "string") return undefined;
  const match = TRACEPARENT.exec(value.trim());
  if (match === null || match[1] === "ff") return undefined;
  const spanContext: SpanContext = {
    traceId: match[2]!,
    spanId: match[3]!,
    traceFlags: Number.parseInt(match[4]!, 16) & 1,
    isRemote: true,
  };
  return isSpanContextValid(spanContext) ? spanContext : undefined;
}

/** When the carrier was written (for a halted run: when it halted), in epoch milliseconds. */
export function readHaltedAt(carrier: Record<string, string> | undefined): number | undefined {
  const raw = carrier?.[CARRIER.haltedAt];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

/** The suspension times a carrier holds (request id -> epoch ms); bad entries are skipped. */
export function readAskedAt(carrier: Record<string, string> | undefined): Map<string, number> {
  const asked = new Map<string, number>();
  const raw = carrier?.[CARRIER.askedAt];
  if (raw === undefined) return asked;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return asked;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return asked;
  for (const [id, at] of Object.entries(parsed)) {
    if (typeof at === "number" && Number.isFinite(at) && at > 0) asked.set(id, at);
  }
  return asked;
}
