export type { ApprovalInfo, ApprovalRefusal } from "./approval.js";
export { ApprovalRefusedError, approvalOf, checkApprover } from "./approval.js";
export type {
  Checkpoint,
  JournalEntry,
  PendingCall,
  PolicyDecisionRecord,
} from "./checkpoint.js";
export {
  assertCheckpoint,
  assertJournalEntry,
  CHECKPOINT_VERSION,
  MAX_POLICY_DECISIONS,
} from "./checkpoint.js";
export {
  decodeCheckpoint,
  encodeCheckpoint,
  expandStoredCheckpoint,
  STORED_CHECKPOINT_FORMAT,
} from "./checkpoint-text.js";
export type { ToolContext, ToolProgress } from "./context.js";
export { credentialParts, isCredentialName } from "./credentials.js";
export type { AwaitedRequest, Durability, DurableStep, DurableStepKind } from "./durability.js";
export {
  checkDurableAnswerSize,
  expiredAnswer,
  MAX_DURABLE_ANSWER_CHARS,
  modelStepKey,
  toolStepKey,
} from "./durability.js";
export {
  AnswerConflictError,
  CheckpointError,
  LeaseLostError,
  RunNotFoundError,
  StoreUnsupportedError,
  SuspensionNotFoundError,
  shortId,
  ToolnexusError,
  WireFormatError,
} from "./errors.js";
export type { FollowOptions } from "./follow.js";
export { DEFAULT_FOLLOW_POLL_MS, followRunEvents } from "./follow.js";
export { randomId } from "./ids.js";
export { isoTime } from "./iso-time.js";
export { jsonCopy, jsonText } from "./json-data.js";
export type {
  AssistantMessage,
  Message,
  ProviderData,
  SystemMessage,
  ToolCall,
  ToolMessage,
  Usage,
  UserMessage,
} from "./messages.js";
export { addUsage, callIdOf, deeperThan, emptyUsage, toolCall } from "./messages.js";
export type {
  Model,
  ModelCallOptions,
  ModelRequest,
  ModelResponse,
  ModelStreamPart,
  StopReason,
  ToolChoice,
} from "./model.js";
export {
  type ContentPart,
  ContentPartError,
  checkParts,
  IMAGE_MIME_TYPES,
  type ImagePart,
  imageParts,
  MAX_PART_BYTES,
  MAX_PARTS,
  MAX_PARTS_BYTES,
  messageParts,
  partsAsText,
  type ResourcePart,
  type TextPart,
  toolResultText,
} from "./parts.js";
export type { PendingInit } from "./pending.js";
export {
  authRequired,
  isPending,
  pending,
  pendingOf,
  RESUME_STATE,
  resumeStateOf,
} from "./pending.js";
export type { MigrationSource, ToolChange, ToolMigration } from "./redeploy.js";
export { ToolChangedError } from "./redeploy.js";
export type { ToolResult } from "./result.js";
export { error, isToolResult, ok } from "./result.js";
export type {
  LoopEventText,
  RecordedRunEvent,
  RunEventInit,
  RunEventType,
} from "./run-events.js";
export {
  checkActor,
  checkCancelReason,
  checkEventOffset,
  checkLoopEvents,
  checkLoopEventTexts,
  eventData,
  eventOutput,
  eventReadLimit,
  LOOP_RUN_EVENTS,
  MAX_ACTOR_CHARS,
  MAX_EVENT_DATA_CHARS,
  MAX_EVENT_OUTPUT_CHARS,
  MAX_EVENTS_PER_READ,
  RUN_EVENT_TYPES,
  TERMINAL_RUN_EVENTS,
} from "./run-events.js";
export type { CheckedRunFilter, RetryReceipt, RunFilter, RunSummary } from "./run-listing.js";
export {
  checkRunFilter,
  DEFAULT_RUNS_PER_LIST,
  MAX_RUNS_PER_LIST,
  RUN_STATES,
} from "./run-listing.js";
export type {
  DoneResult,
  FinishedResult,
  IncompleteResult,
  PendingResult,
  RunResult,
  ToolCallRecord,
} from "./run-result.js";
export { MIN_SECRET_LENGTH, Scrubber } from "./scrub.js";
export {
  replaceSecrets,
  secretSpans,
  secretSpellings,
  secretStartAtEnd,
  type TextSpan,
} from "./secret-spans.js";
export {
  canonicalJson,
  checkId,
  checkLease,
  checkLeaseMs,
  checkOwner,
  checkStoreIds,
  guardStoreIds,
  InvalidIdError,
  MAX_STORE_ID_CHARS,
  pruneCutoff,
  readStoredAnswer,
  readStoredAnswerLoosely,
  readStoredCheckpoint,
  readStoredError,
  readStoredJournalEntry,
  readStoredRequest,
  readStoredResult,
  storedError,
} from "./store-kit.js";
export type {
  AnswerOptions,
  AnswerReceipt,
  Awaitable,
  CancelInfo,
  CancelReceipt,
  CancelRequest,
  ClaimedRun,
  ClaimOptions,
  ConversationStore,
  HaltReceipt,
  Lease,
  PruneOptions,
  RequestInfo,
  RequestState,
  RunErrorInfo,
  RunInfo,
  RunOutcome,
  RunState,
  RunStore,
  SuspensionFilter,
  SuspensionSummary,
} from "./stores.js";
export { quotedStart, textHead } from "./text-head.js";
export { thrownError, thrownOf } from "./thrown.js";
export type { JSONSchema, Tool, ToolSource, ToolSpec } from "./tool.js";
export { isContextFree, markContextFree, sanitize } from "./tool.js";
export type {
  ClaimDueOptions,
  DueTimer,
  ExpiryAnswer,
  RequestTimer,
  WaitRules,
} from "./waiting.js";
export {
  checkClaimDue,
  MAX_DUE_PER_CLAIM,
  MAX_REMINDERS,
  readdressed,
  storedTimers,
  timersOf,
} from "./waiting.js";
export type {
  Answer,
  AnswerReason,
  Request,
  RequestKind,
  RequestRoute,
  WireSchema,
} from "./wire.js";
export { AnswerSchema, parseAnswer, parseRequest, RequestSchema } from "./wire.js";
export type { WireDataIssue } from "./wire-data.js";
export { copyWireData, MAX_WIRE_DEPTH, MAX_WIRE_VALUES } from "./wire-data.js";
