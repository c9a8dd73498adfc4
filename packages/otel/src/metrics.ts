// The histograms, with the bucket boundaries the GenAI conventions advise.
import { type Histogram, type Meter, ValueType } from "@opentelemetry/api";
import { capped, type Limits } from "./limits.js";
import { METRIC } from "./names.js";

/** Seconds, from 10ms to ~80s: the conventions' boundaries for model calls and tool executions. */
const OPERATION_BUCKETS = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];
const TOKEN_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];
const AGENT_BUCKETS = [0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 51.2, 102.4, 204.8, 409.6];
/** Seconds, from a second to a week: humans answer in seconds, hours or after a weekend. */
const WAIT_BUCKETS = [
  1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14400, 28800, 86400, 172800, 604800,
];

export interface Instruments {
  operationDuration: Histogram;
  tokenUsage: Histogram;
  agentDuration: Histogram;
  toolDuration: Histogram;
  waitDuration: Histogram;
}

/** The histograms, each cutting its measurements' string attributes to the attribute cap. */
export function instruments(meter: Meter, limits: Limits): Instruments {
  const made = histograms(meter);
  const capping = (histogram: Histogram): Histogram => ({
    record: (value, attributes, context) =>
      histogram.record(value, attributes && capped(attributes, limits), context),
  });
  return {
    operationDuration: capping(made.operationDuration),
    tokenUsage: capping(made.tokenUsage),
    agentDuration: capping(made.agentDuration),
    toolDuration: capping(made.toolDuration),
    waitDuration: capping(made.waitDuration),
  };
}

function histograms(meter: Meter): Instruments {
  return {
    operationDuration: meter.createHistogram(METRIC.operationDuration, {
      description: "GenAI operation duration.",
      unit: "s",
      advice: { explicitBucketBoundaries: OPERATION_BUCKETS },
    }),
    tokenUsage: meter.createHistogram(METRIC.tokenUsage, {
      description: "Number of input and output tokens used.",
      unit: "{token}",
      valueType: ValueType.INT,
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    }),
    agentDuration: meter.createHistogram(METRIC.agentDuration, {
      description:
        "The duration of one agent invocation: a toolnexus run or one continuation of it.",
      unit: "s",
      advice: { explicitBucketBoundaries: AGENT_BUCKETS },
    }),
    toolDuration: meter.createHistogram(METRIC.toolDuration, {
      description: "The duration of a single tool execution, without any wait for a human.",
      unit: "s",
      advice: { explicitBucketBoundaries: OPERATION_BUCKETS },
    }),
    waitDuration: meter.createHistogram(METRIC.waitDuration, {
      description: "How long a human took to answer a suspended tool call's request.",
      unit: "s",
      advice: { explicitBucketBoundaries: WAIT_BUCKETS },
    }),
  };
}
