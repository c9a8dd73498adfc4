export type { ElicitationParams, FormSchema } from "./elicitation.js";
export { toAnswer, toElicitation } from "./elicitation.js";
export { type McpHttpHandle, serveMcpHttp } from "./http.js";
export type { McpHttpOptions } from "./http-options.js";
export type { McpCaller, McpCallInfo, McpServeOptions } from "./options.js";
export { mcpServerFactory } from "./server.js";
export { type McpStdioHandle, type McpStdioOptions, serveMcpStdio } from "./stdio.js";
export { TASKS_EXTENSION } from "./tasks.js";
