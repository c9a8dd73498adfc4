// The declaration of an HTTP tool: its options, their defaults, and the check that refuses a
// bad one when the tool is created.
import type { JSONSchema, Tool } from "@toolnexus/core";
import { DEFAULT_MAX_REDIRECTS } from "./redirects.js";
import { checkTemplate, parseTemplate } from "./url-template.js";

/** How the arguments left after the URL and the query string are sent. */
export type HttpBodyMode = "json" | "form" | "raw";

/** What a 2xx response becomes: its text, its JSON re-serialised, or `<status>\n<text>`. */
export type HttpResultMode = "text" | "json" | "status+text";

/** An HTTP endpoint declared as a tool (toolnexus SPEC §7). */
export interface HttpToolOptions {
  /** The tool's name; passed through `sanitize` (anything outside `[a-zA-Z0-9_-]` becomes `_`). */
  name: string;
  /** What the endpoint does, for the model. */
  description: string;
  /** The HTTP method; defaults to `"GET"`. */
  method?: string;
  /**
   * An absolute http(s) URL; each `{name}` (every occurrence) is replaced by the argument of
   * that name, URL-encoded (`encodeURIComponent`), and that argument is not sent again. A value
   * that would change the URL's structure is refused: `.`/`..` path segments, an empty path
   * value, a host value other than letters, digits and inner hyphens.
   */
  url: string;
  /**
   * Request headers. `${VAR}` in a value is replaced by the environment variable `VAR` at each
   * call, so secrets stay out of code; expanded values are never logged, never appear in a
   * result, and the headers are only ever sent to the URL's origin. Literal values are secrets
   * too (the token after `Bearer `/`Basic `/`token `, else the whole value), except those of
   * descriptive headers such as `Accept`, `Content-Type`, `User-Agent` or `*-Version` (see the
   * README for the full rule).
   */
  headers?: Readonly<Record<string, string>>;
  /**
   * Arguments sent in the query string instead of the body (GET and HEAD send every declared
   * argument there). These names are declared arguments even when `inputSchema` omits them. None
   * may set a query key the URL template already has: that call is an error result.
   */
  query?: readonly string[];
  /** How the remaining arguments are sent by methods with a body; defaults to `"json"`. */
  body?: HttpBodyMode;
  /**
   * The arguments' JSON Schema, as the model sees it. Defaults to one string property per URL
   * placeholder (required) and per `query` name, and nothing else. An argument it does not
   * declare (top-level `properties`, `patternProperties`, or `additionalProperties: true` or a
   * schema), and that is no placeholder or `query` name, is refused with an error result.
   */
  inputSchema?: JSONSchema;
  /** The request's time limit in milliseconds; defaults to 30000. A call's `ctx.timeout` wins. */
  timeout?: number;
  /** What a 2xx response becomes; defaults to `"text"`. */
  resultMode?: HttpResultMode;
  /** Ask a human before each call (e.g. for an endpoint that changes something). */
  needsApproval?: Tool["needsApproval"];
  /** Where `${VAR}` values come from; defaults to `process.env`, read at each call. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * The most bytes of a response body read (1 MiB by default), error bodies included. A longer
   * body is cut there with a marker and the rest is not downloaded.
   */
  maxResponseBytes?: number;
  /**
   * How many same-origin redirects a call follows (5 by default; 0 follows none). A redirect to
   * another origin is never followed.
   */
  maxRedirects?: number;
}

/** The request time limit when neither the declaration nor the call sets one. */
export const DEFAULT_HTTP_TIMEOUT = 30_000;

/** The most bytes of a response body a call reads when the declaration does not say (1 MiB). */
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

export { DEFAULT_MAX_REDIRECTS };

const METHOD = /^[A-Za-z]+$/;
const BODY_MODES: readonly HttpBodyMode[] = ["json", "form", "raw"];
const RESULT_MODES: readonly HttpResultMode[] = ["text", "json", "status+text"];

const isCount = (value: unknown, min: number) =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= min;

/** Throws a TypeError naming the first thing wrong with a declaration. */
export function checkOptions(options: HttpToolOptions): void {
  const who = `httpTool ${JSON.stringify(options?.name)}`;
  if (typeof options?.name !== "string" || options.name === "") {
    throw new TypeError(`httpTool: name must be a non-empty string`);
  }
  if (typeof options.description !== "string") {
    throw new TypeError(`${who}: description must be a string`);
  }
  if (typeof options.url !== "string" || !/^https?:\/\//i.test(options.url)) {
    throw new TypeError(`${who}: url must be an absolute http:// or https:// URL template`);
  }
  try {
    checkTemplate(parseTemplate(options.url));
  } catch {
    throw new TypeError(
      `${who}: url is not a valid URL template (a placeholder can stand in the host, the path, the query or the fragment, not the port)`,
    );
  }
  if (options.method !== undefined && !METHOD.test(options.method)) {
    throw new TypeError(`${who}: method must be an HTTP method such as "GET" or "POST"`);
  }
  if (options.body !== undefined && !BODY_MODES.includes(options.body)) {
    throw new TypeError(`${who}: body must be one of ${BODY_MODES.join(", ")}`);
  }
  if (options.resultMode !== undefined && !RESULT_MODES.includes(options.resultMode)) {
    throw new TypeError(`${who}: resultMode must be one of ${RESULT_MODES.join(", ")}`);
  }
  const { timeout } = options;
  if (timeout !== undefined && !(Number.isFinite(timeout) && timeout > 0)) {
    throw new TypeError(`${who}: timeout must be a positive number of milliseconds`);
  }
  if (options.maxResponseBytes !== undefined && !isCount(options.maxResponseBytes, 1)) {
    throw new TypeError(`${who}: maxResponseBytes must be a positive whole number of bytes`);
  }
  if (options.maxRedirects !== undefined && !isCount(options.maxRedirects, 0)) {
    throw new TypeError(`${who}: maxRedirects must be a whole number, 0 or more`);
  }
  for (const [header, value] of Object.entries(options.headers ?? {})) {
    if (typeof value !== "string")
      throw new TypeError(`${who}: header "${header}" must be a string`);
  }
  if (options.query !== undefined && !options.query.every((name) => typeof name === "string")) {
    throw new TypeError(`${who}: query must be a list of argument names`);
  }
}
