// The handler's own checks, exported for the protocol handlers built on this package
// (@toolnexus/ag-ui, @toolnexus/ai-sdk): a body cap, an origin check and an answer's schema
// check then mean the same, and refuse the same way, whichever protocol a page speaks.
export { answerOf, checkAgainstSchema, schemaOf } from "./answer-body.js";
export {
  type AnswerConflictReason,
  answerConflict,
  answerConflictOf,
  answerStoreRefusal,
  checkAnswer,
} from "./answer-checks.js";
export { errorResponse, internalResponse, jsonResponse } from "./errors.js";
export { checkOrigin, idOf, readJson } from "./guard.js";
export { allowedOriginsOf } from "./origins.js";
export { recordAnswer } from "./record-answer.js";
export type { OnError } from "./report.js";
export { reportError } from "./report.js";
export type { AccessCheck } from "./run-access.js";
export {
  authorizeRequest,
  authorizeRun,
  identifyCaller,
  MAX_CALLER_ID_CHARS,
  permits,
  runAccessOf,
} from "./run-access.js";
export type { SseResponseOptions } from "./sse-response.js";
export { SSE_HEADERS, sseResponse } from "./sse-response.js";
export type { StreamSlots } from "./stream-slots.js";
export { DEFAULT_MAX_STREAMS_PER_CALLER, streamSlots } from "./stream-slots.js";
