export { type OtelInstrumentationOptions, otelInstrumentation } from "./instrumentation.js";
export { ATTR as ATTRIBUTES, EVENT as EVENTS, METRIC as METRICS } from "./names.js";
export type {
  OtelInstrumentation,
  TracedAnswer,
  TracedMessage,
  TracedModelResponse,
  TracedParent,
  TracedRequest,
  TracedRun,
  TracedRunInfo,
  TracedRunResult,
  TracedToolCall,
  TracedToolInfo,
  TracedToolOutcome,
  TracedToolResult,
  TracedUsage,
} from "./seam.js";
export { errorType } from "./span-parts.js";
