// Errors a host handles around answers and durable runs, re-exported so one import is enough.

export type {
  AnswerOptions,
  CancelInfo,
  CancelReceipt,
  CancelRequest,
  DueTimer,
  FollowOptions,
  MigrationSource,
  RecordedRunEvent,
  RunEventType,
  ToolChange,
  ToolMigration,
  WaitRules,
} from "@toolnexus/core";
export {
  AnswerConflictError,
  ApprovalRefusedError,
  CheckpointError,
  LeaseLostError,
  RunNotFoundError,
  StoreUnsupportedError,
  SuspensionNotFoundError,
  ToolChangedError,
  WireFormatError,
} from "@toolnexus/core";
export type { AgentToolOptions } from "./agent-tool.js";
export { agentTool } from "./agent-tool.js";
export { MAX_MODEL_ID_CHARS } from "./checked-response.js";
export { createClient } from "./client.js";
export type {
  Compacted,
  CompactionOptions,
  CompactionSizes,
  SummarizeInfo,
} from "./compaction.js";
export { compactMessages, estimateTokens } from "./compaction.js";
export { CancelRequestedError, RunCancelledError, RunError } from "./errors.js";
export { schemaFingerprint } from "./fingerprint.js";
export type { InProcessModelOptions, SimpleToolCall, SimpleTurn } from "./in-process-model.js";
export { inProcessModel } from "./in-process-model.js";
export type {
  Instrumentation,
  RunTrace,
  RunTraceInfo,
  ToolOutcome,
  ToolTraceInfo,
} from "./instrumentation.js";
export type { MemoryRunStore } from "./memory-stores.js";
export { memoryConversationStore, memoryRunStore } from "./memory-stores.js";
export type {
  ApprovalPolicy,
  PolicyDecision,
  PolicyInput,
  PolicyRecord,
} from "./policy.js";
export { MAX_APPROVALS, MAX_REASON_CHARS, policyActor } from "./policy.js";
export type {
  TranslateContent,
  TranslateContentPart,
  TranslatedToolCall,
  TranslateMessage,
  TranslateOptions,
  TranslateRequest,
  TranslateResult,
  TranslateTool,
  TranslateToolCallParam,
  TranslateToolChoice,
} from "./translate.js";
export { translate } from "./translate.js";
export type {
  AfterToolInfo,
  BeforeToolDecision,
  BeforeToolInfo,
  Client,
  ClientOptions,
  DoneResult,
  Hooks,
  IncompleteResult,
  PendingResult,
  ResumeOptions,
  RunEvent,
  RunOptions,
  RunResult,
  ToolCallRecord,
  WaitFor,
  WaitForInfo,
  WorkOptions,
  WorkSummary,
} from "./types.js";
