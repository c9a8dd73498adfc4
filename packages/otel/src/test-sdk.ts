// The OpenTelemetry SDK as the tests set it up: spans to memory through the global provider
// (so a tool's own spans, made with the global tracer, are captured too), the AsyncLocalStorage
// context manager, and a meter whose measurements a test collects on demand.
import { type Attributes, context, metrics, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
} from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

export const exporter = new InMemorySpanExporter();

/** Registers the global tracer provider and context manager, once per test file. */
export function installTracing(): void {
  trace.disable();
  context.disable();
  propagation.disable();
  metrics.disable();
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
}

class ManualReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** One measured histogram series: its attributes and what it holds. */
export interface Series {
  attributes: Attributes;
  count: number;
  sum: number;
}

/** One histogram as collected. */
export interface Measured {
  unit: string;
  boundaries: number[];
  series: Series[];
}

/** A fresh meter, and a way to read every histogram recorded with it so far. */
export function testMeter() {
  const reader = new ManualReader();
  const provider = new MeterProvider({ readers: [reader] });
  const meter = provider.getMeter("test");
  return {
    meter,
    provider,
    /** Histogram series by metric name. */
    async collect(): Promise<Map<string, Measured>> {
      const { resourceMetrics, errors } = await reader.collect();
      if (errors.length > 0) throw errors[0];
      const found = new Map<string, Measured>();
      for (const scope of resourceMetrics.scopeMetrics) {
        for (const metric of scope.metrics) {
          const points = metric.dataPoints as DataPoint<Histogram>[];
          found.set(metric.descriptor.name, {
            unit: metric.descriptor.unit,
            boundaries: points[0]?.value.buckets.boundaries ?? [],
            series: points.map((point) => ({
              attributes: point.attributes,
              count: point.value.count,
              sum: point.value.sum ?? 0,
            })),
          });
        }
      }
      return found;
    },
  };
}

export function finished(): ReadableSpan[] {
  return exporter.getFinishedSpans();
}

export function spanNamed(name: string, spans = finished()): ReadableSpan {
  const matches = spans.filter((span) => span.name === name);
  if (matches.length !== 1) {
    throw new Error(
      `expected one span "${name}", found ${matches.length} among ${spans.map((s) => s.name).join(", ")}`,
    );
  }
  return matches[0]!;
}

export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

export function idOf(span: ReadableSpan): string {
  return span.spanContext().spanId;
}

/** Every string recorded anywhere: span names, attributes, events, status messages, links. */
export function everythingRecorded(spans = finished()): string[] {
  const values: string[] = [];
  const add = (attributes: Attributes | undefined) => {
    for (const [key, value] of Object.entries(attributes ?? {})) {
      values.push(key);
      if (Array.isArray(value)) for (const item of value) values.push(String(item));
      else values.push(String(value));
    }
  };
  for (const span of spans) {
    values.push(span.name);
    if (span.status.message !== undefined) values.push(span.status.message);
    add(span.attributes);
    for (const event of span.events) {
      values.push(event.name);
      add(event.attributes);
    }
    for (const link of span.links) add(link.attributes);
  }
  return values;
}
