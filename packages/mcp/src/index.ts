export { INHERITED_ENV, type InheritEnv } from "./child-env.js";
export {
  allowedTools,
  DEFAULT_TIMEOUT_MS,
  expandEnv,
  type McpProtocol,
  type McpServerConfig,
  type McpServerSpec,
  mcpToolName,
  parseMcpConfig,
} from "./config.js";
export { McpConfigError, type McpResponseLimit, McpResponseTooLargeError } from "./errors.js";
export {
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_MAX_OUTPUT_CHARS,
  DEFAULT_MAX_STREAM_BYTES,
} from "./limits.js";
export {
  type LoadMcpOptions,
  loadMcp,
  type McpRoot,
  type McpSampling,
  type McpServerInfo,
  type McpServerStatus,
  type McpToolset,
  type McpWaitFor,
  type McpWaitInfo,
} from "./load.js";
export {
  combinedRequest,
  type Elicitation,
  type ElicitResult,
  elicitationRequest,
  type McpCallResult,
  toElicitResult,
  toElicitResults,
  toToolResult,
} from "./mapping.js";
export { McpAuthorizationError } from "./oauth/errors.js";
export { fileTokenStore, memoryTokenStore } from "./oauth/store.js";
export type {
  McpAssertionRequest,
  McpAuthConfig,
  McpAuthorizationRequest,
  McpAuthRecord,
  McpOAuthOptions,
  McpTokenStore,
} from "./oauth/types.js";
export {
  canonicalJson,
  compareFingerprints,
  fingerprintTools,
  type McpServerFingerprint,
  type McpToolChange,
  type McpToolField,
  type McpToolFingerprint,
  McpToolsChangedError,
  type PinnedToolDefinition,
  toolFingerprint,
} from "./pinning.js";
export { checkPins, type McpPinOptions, type McpPinVerdict } from "./pinning-policy.js";
export { DEFAULT_TASK_WAIT_MS, TASK_REQUEST_KIND } from "./task.js";
export {
  type McpTask,
  McpTaskError,
  type McpTaskStatus,
  parseTask,
  TASKS_EXTENSION,
} from "./task-wire.js";
export type { WatchTasksOptions, WatchTasksSummary } from "./types.js";
