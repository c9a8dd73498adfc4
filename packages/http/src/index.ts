export type { HttpBodyMode, HttpResultMode, HttpToolOptions } from "./http-tool.js";
export { DEFAULT_HTTP_TIMEOUT, httpTool } from "./http-tool.js";
