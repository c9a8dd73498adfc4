import {
  type Context,
  propagation,
  ROOT_CONTEXT,
  type TextMapPropagator,
  TraceFlags,
  trace,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { afterEach, describe, expect, it } from "vitest";
import { extractContext, injectContext, parseTraceparent, traceparent } from "./carrier.js";
import { errorType, otelInstrumentation } from "./index.js";

const spanContext = {
  traceId: "0af7651916cd43dd8448eb211c80319c",
  spanId: "b7ad6b7169203331",
  traceFlags: TraceFlags.SAMPLED,
};
const withSpan = trace.setSpanContext(ROOT_CONTEXT, spanContext);

afterEach(() => propagation.disable());

/** A propagator that is not W3C: writes its own header only. */
const custom: TextMapPropagator = {
  inject(ctx: Context, carrier: unknown) {
    const span = trace.getSpanContext(ctx);
    if (span !== undefined)
      (carrier as Record<string, string>)["x-trace"] = `${span.traceId}:${span.spanId}`;
  },
  extract(ctx: Context, carrier: unknown) {
    const value = (carrier as Record<string, string>)["x-trace"];
    if (value === undefined) return ctx;
    const [traceId, spanId] = value.split(":");
    return trace.setSpanContext(ctx, {
      traceId: traceId!,
      spanId: spanId!,
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
    });
  },
  fields: () => ["x-trace"],
};

describe("the carrier", () => {
  it("writes a W3C traceparent even when no propagator is registered", () => {
    const carrier = injectContext(withSpan);
    expect(carrier).toEqual({
      traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    });
    expect(extractContext(carrier)).toMatchObject({ ...spanContext, isRemote: true });
  });

  it("uses the registered propagator, tracestate included", () => {
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    const state = trace.setSpanContext(ROOT_CONTEXT, {
      ...spanContext,
      traceState: new (class {
        set() {
          return this;
        }
        unset() {
          return this;
        }
        get() {
          return undefined;
        }
        serialize() {
          return "vendor=1";
        }
      })(),
    });
    const carrier = injectContext(state);
    expect(carrier).toEqual({
      traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      tracestate: "vendor=1",
    });
    expect(extractContext(carrier)).toMatchObject(spanContext);
  });

  it("keeps a traceparent beside another propagator's fields, and reads either back", () => {
    propagation.setGlobalPropagator(custom);
    const carrier = injectContext(withSpan);
    expect(carrier).toEqual({
      "x-trace": "0af7651916cd43dd8448eb211c80319c:b7ad6b7169203331",
      traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    });
    expect(extractContext(carrier)).toMatchObject(spanContext);
    // The continuing process set up no propagator: the traceparent still links.
    propagation.disable();
    expect(extractContext(carrier)).toMatchObject(spanContext);
  });

  it("survives a propagator that throws", () => {
    propagation.setGlobalPropagator({
      inject() {
        throw new Error("broken inject");
      },
      extract() {
        throw new Error("broken extract");
      },
      fields: () => [],
    });
    const carrier = injectContext(withSpan);
    expect(carrier).toEqual({
      traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    });
    expect(extractContext(carrier)).toMatchObject(spanContext);
  });

  it("writes nothing for a context without a valid span", () => {
    expect(injectContext(ROOT_CONTEXT)).toEqual({});
    expect(extractContext({})).toBeUndefined();
  });

  it("parses traceparent strictly", () => {
    expect(traceparent({ ...spanContext, traceFlags: TraceFlags.NONE })).toBe(
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00",
    );
    expect(parseTraceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")).toEqual({
      ...spanContext,
      isRemote: true,
    });
    // A later version may append fields.
    expect(
      parseTraceparent("01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra"),
    ).toMatchObject(spanContext);
    for (const bad of [
      undefined,
      "",
      "garbage",
      "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      "00-00000000000000000000000000000000-b7ad6b7169203331-01",
      "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
      "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b716920333-01",
    ]) {
      expect(parseTraceparent(bad)).toBeUndefined();
    }
  });
});

describe("options and errors", () => {
  it("refuses bad options", () => {
    expect(() => otelInstrumentation({ recordContent: "yes" as unknown as boolean })).toThrow(
      "recordContent must be a boolean",
    );
    expect(() => otelInstrumentation({ agentName: "" })).toThrow("agentName must be a non-empty");
    expect(() => otelInstrumentation({ providerName: 3 as unknown as string })).toThrow(
      "providerName must be a non-empty",
    );
    expect(() => otelInstrumentation({ tracer: {} as never })).toThrow(
      "must be an OpenTelemetry Tracer",
    );
    expect(() => otelInstrumentation({ meter: {} as never })).toThrow(
      "must be an OpenTelemetry Meter",
    );
    expect(() => otelInstrumentation(null as never)).toThrow("options must be an object");
  });

  it("names errors by code, then class, then _OTHER", () => {
    expect(errorType(Object.assign(new Error("x"), { code: "model_failed" }))).toBe("model_failed");
    expect(errorType(new TypeError("x"))).toBe("TypeError");
    expect(errorType(new Error("x"))).toBe("_OTHER");
    expect(errorType("a string")).toBe("_OTHER");
    expect(errorType(undefined)).toBe("_OTHER");
  });
});
