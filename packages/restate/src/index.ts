// Public API of @toolnexus/restate.
export {
  answerPromiseName,
  type RestateDurabilityOptions,
  restateDurability,
} from "./durability.js";
export {
  answerRun,
  attachRun,
  type IngressConnection,
  type IngressOptions,
  type IngressTarget,
  submitRun,
  waitingRequests,
} from "./ingress.js";
export { ensureWithResolvers } from "./node20.js";
export {
  type AnswerReceipt,
  DEFAULT_SERVICE,
  type RunInput,
  type ToolnexusWorkflowOptions,
  toolnexusWorkflow,
} from "./workflow.js";
