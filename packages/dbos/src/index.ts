// Public API of @toolnexus/dbos: toolnexus runs as DBOS Transact workflows.
export {
  type DbosAgent,
  type DbosAgentOptions,
  type DbosRun,
  type DbosRunOptions,
  type DbosStartOptions,
  registerAgent,
} from "./agent.js";
export {
  answer,
  type DbosAnswerOptions,
  type DbosAnswerReceipt,
  type DbosMessenger,
  MAX_ANSWER_CHARS,
  type WaitingOptions,
  waitingRequests,
} from "./answer.js";
export { type DbosDurabilityOptions, dbosDurability } from "./durability.js";
export { ANSWER_TOPIC, WAITING_EVENT, workflowNameOf } from "./names.js";
export { listWaiting, type WaitingRun } from "./waiting.js";
