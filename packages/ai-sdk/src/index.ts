export type {
  ApprovalResponse,
  ChatMessage,
  ChatMessagePart,
  ChatRequestBody,
} from "./chat-body.js";
export {
  approvalResponsesOf,
  MAX_APPROVAL_REASON_CHARS,
  MAX_APPROVAL_RESPONSES,
  MAX_CHAT_ID_CHARS,
  textOf,
} from "./chat-body.js";
export type { ChatRuns } from "./chat-runs.js";
export { chatRunKey, DEFAULT_MAX_CHATS, memoryChatRuns } from "./chat-runs.js";
export type {
  FinishReason,
  ToolnexusDataParts,
  ToolnexusProgressData,
  ToolnexusRequestData,
  ToolnexusRunData,
  UIMessageChunk,
} from "./chunks.js";
export { chunkFrame, DONE_FRAME, UI_MESSAGE_STREAM_HEADERS } from "./chunks.js";
export type { UIMessageEncoder } from "./encoder.js";
export { createUIMessageEncoder } from "./encoder.js";
export type { FollowUIMessagesOptions } from "./follow.js";
export { followRunAsUIMessages, suspensionOffset } from "./follow.js";
export type { ChatHandler } from "./handler.js";
export { createChatHandler } from "./handler.js";
export type { ChatHandlerOptions, ChatStartContext } from "./options.js";
export {
  DEFAULT_CHAT_API,
  DEFAULT_CHAT_MAX_BODY_BYTES,
  DEFAULT_MAX_MESSAGES,
  DEFAULT_MAX_PROMPT_CHARS,
  DEFAULT_MAX_STREAM_MS,
  DEFAULT_START_TIMEOUT_MS,
} from "./options.js";
export type { UIMessageStreamResponseOptions } from "./stream-response.js";
export { uiMessageStreamResponse } from "./stream-response.js";
