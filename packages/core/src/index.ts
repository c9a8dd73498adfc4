export type { ToolContext } from "./context.js";
export {
  AlreadyResumedError,
  CheckpointError,
  SuspensionNotFoundError,
  ToolnexusError,
  WireFormatError,
} from "./errors.js";
export { randomId } from "./ids.js";
export type {
  AssistantMessage,
  Message,
  SystemMessage,
  ToolCall,
  ToolMessage,
  Usage,
  UserMessage,
} from "./messages.js";
export { addUsage, emptyUsage, toolCall } from "./messages.js";
export type {
  Model,
  ModelCallOptions,
  ModelRequest,
  ModelResponse,
  ModelStreamPart,
} from "./model.js";
export type { PendingInit } from "./pending.js";
export { authRequired, isPending, pending, pendingOf } from "./pending.js";
export type { ToolResult } from "./result.js";
export { error, isToolResult, ok } from "./result.js";
export type {
  Awaitable,
  Checkpoint,
  ConversationStore,
  PendingCall,
  SuspensionFilter,
  SuspensionState,
  SuspensionStore,
  SuspensionSummary,
} from "./stores.js";
export { assertCheckpoint, CHECKPOINT_VERSION } from "./stores.js";
export type { JSONSchema, Tool, ToolSource, ToolSpec } from "./tool.js";
export { sanitize } from "./tool.js";
export type { Answer, AnswerReason, Request, RequestKind } from "./wire.js";
export { AnswerSchema, parseAnswer, parseRequest, RequestSchema } from "./wire.js";
