export type { AccessCheck, OnError, SseResponseOptions, StreamSlots } from "./building-blocks.js";
export {
  type AnswerConflictReason,
  allowedOriginsOf,
  answerConflict,
  answerConflictOf,
  answerOf,
  answerStoreRefusal,
  authorizeRequest,
  authorizeRun,
  checkAgainstSchema,
  checkAnswer,
  checkOrigin,
  DEFAULT_MAX_STREAMS_PER_CALLER,
  errorResponse,
  identifyCaller,
  idOf,
  internalResponse,
  jsonResponse,
  MAX_CALLER_ID_CHARS,
  permits,
  readJson,
  recordAnswer,
  reportError,
  runAccessOf,
  SSE_HEADERS,
  schemaOf,
  sseResponse,
  streamSlots,
} from "./building-blocks.js";
export type { WebErrorBody, WebErrorCode } from "./errors.js";
export { WebError } from "./errors.js";
export { MAX_ID_CHARS, MAX_QUERY_CHARS } from "./guard.js";
export type { WebHandler } from "./handler.js";
export { createWebHandler } from "./handler.js";
export type {
  ErrorContext,
  RunAccess,
  StartAccess,
  StartContext,
  WebAccess,
  WebAction,
  WebCaller,
  WebHandlerOptions,
} from "./options.js";
export {
  DEFAULT_HEARTBEAT_MS,
  DEFAULT_LIST_LIMIT,
  DEFAULT_MAX_BODY_BYTES,
  LIST_SCAN_LIMIT,
  MAX_LIST_LIMIT,
} from "./options.js";
export type { RequestView, RunView } from "./views.js";
