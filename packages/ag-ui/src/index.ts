export type { FollowAsAgUiOptions } from "./follow.js";
export {
  DEFAULT_MAX_STREAM_EVENTS,
  DEFAULT_MAX_STREAM_MS,
  DEFAULT_WAIT_FOR_RUN_MS,
  followAsAgUi,
} from "./follow.js";
export type { AgUiHandler } from "./handler.js";
export { createAgUiHandler } from "./handler.js";
export {
  checkRunAgentInput,
  MAX_AG_UI_ID_CHARS,
  MAX_INPUT_MESSAGES,
  MAX_INPUT_TOOLS,
  MAX_RESUME_ENTRIES,
  promptOf,
} from "./input.js";
export {
  APPROVAL_RESPONSE_SCHEMA,
  answerOfResume,
  interruptOf,
  MAX_DECLINE_REASON_CHARS,
  METADATA_KEY,
} from "./interrupts.js";
export type { AgUiEventMapper, AgUiRunIds, PendingCallInfo } from "./mapper.js";
export { CUSTOM_EVENT_NAMES, createAgUiEventMapper } from "./mapper.js";
export type { AgUiHandlerOptions, AgUiStartContext } from "./options.js";
export { DEFAULT_AG_UI_MAX_BODY_BYTES } from "./options.js";
