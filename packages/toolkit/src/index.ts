export type {
  AnthropicTool,
  GeminiFunctionDeclaration,
  GeminiTool,
  OpenAITool,
} from "./adapters.js";
export { toAnthropic, toGemini, toOpenAI } from "./adapters.js";
export { createToolkit, ToolkitError } from "./toolkit.js";
export type {
  ClashRule,
  McpLoader,
  McpLoadOptions,
  McpServerStatus,
  McpSource,
  ToolClash,
  Toolkit,
  ToolkitOptions,
  ToolOrigin,
  ToolOriginKind,
} from "./types.js";
