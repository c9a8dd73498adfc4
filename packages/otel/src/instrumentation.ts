// The instrumentation a client is given: its options, checked once, and a RunTelemetry per run.
import { type Meter, metrics, type Tracer, trace } from "@opentelemetry/api";
import {
  checkCap,
  DEFAULT_MAX_ATTRIBUTE_CHARS,
  DEFAULT_MAX_CONTENT_CHARS,
  type Limits,
} from "./limits.js";
import { instruments } from "./metrics.js";
import { SCOPE } from "./names.js";
import { RunTelemetry, type Telemetry } from "./run-telemetry.js";
import type { OtelInstrumentation } from "./seam.js";

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
  /**
   * The most characters (UTF-16 code units, as `String.length` counts them) of any string this
   * package records that is not content: ids (call, response, message, run, request, session),
   * names, finish reasons, error types, status descriptions, exception messages and stacks of
   * failed model calls and runs, span names and metric attributes. A longer string keeps its
   * beginning and ends with `…[cut: N characters]`, within the cap. A whole number of at least
   * 64, or `Infinity` for no cap. Default: 4096.
   */
  maxAttributeChars?: number;
  /**
   * The most characters of each content attribute (`recordContent: true`): the system
   * instructions, the input and output messages, tool arguments and results, a suspension's
   * prompt, a failed tool's error text and exception. `gen_ai.input.messages` keeps the newest
   * messages that fit in it (`toolnexus.input.messages.omitted` says how many were left out), and
   * the message attributes stay valid JSON: long strings inside them are cut. A whole number of
   * at least 64, or `Infinity` for no cap. Default: 32768.
   */
  maxContentChars?: number;
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
  const limits: Limits = {
    attribute: options.maxAttributeChars ?? DEFAULT_MAX_ATTRIBUTE_CHARS,
    content: options.maxContentChars ?? DEFAULT_MAX_CONTENT_CHARS,
  };
  let telemetry: Telemetry | undefined;
  // Resolved on the first run, not now: a meter taken from the global provider before the SDK
  // registered would stay a no-op (the metrics API has no proxy meter).
  const resolve = (): Telemetry => {
    telemetry ??= {
      tracer: options.tracer ?? trace.getTracer(SCOPE),
      instruments: instruments(options.meter ?? metrics.getMeter(SCOPE), limits),
      recordContent: options.recordContent === true,
      limits,
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
  checkCap("maxAttributeChars", options.maxAttributeChars);
  checkCap("maxContentChars", options.maxContentChars);
  if (options.tracer !== undefined && typeof options.tracer?.startSpan !== "function") {
    throw new TypeError("otelInstrumentation: tracer must be an OpenTelemetry Tracer");
  }
  if (options.meter !== undefined && typeof options.meter?.createHistogram !== "function") {
    throw new TypeError("otelInstrumentation: meter must be an OpenTelemetry Meter");
  }
}
