export { httpTool } from "./http-tool.js";
export type { HttpBodyMode, HttpResultMode, HttpToolOptions } from "./options.js";
export {
  DEFAULT_HTTP_TIMEOUT,
  DEFAULT_MAX_REDIRECTS,
  DEFAULT_MAX_RESPONSE_BYTES,
} from "./options.js";
export type { RedirectRefusal } from "./redirects.js";
