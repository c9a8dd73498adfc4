import {
  error,
  type JSONSchema,
  ok,
  sanitize,
  type Tool,
  type ToolContext,
  type ToolResult,
} from "@toolnexus/core";

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
   * An absolute http(s) URL; each `{name}` is replaced by the argument of that name,
   * URL-encoded (`encodeURIComponent`), and that argument is not sent again.
   */
  url: string;
  /**
   * Request headers. `${VAR}` in a value is replaced by the environment variable `VAR` at each
   * call, so secrets stay out of code; expanded values are never logged and never appear in
   * a result.
   */
  headers?: Readonly<Record<string, string>>;
  /** Arguments sent in the query string instead of the body (GET and HEAD send all of them). */
  query?: readonly string[];
  /** How the remaining arguments are sent by methods with a body; defaults to `"json"`. */
  body?: HttpBodyMode;
  /**
   * The arguments' JSON Schema, as the model sees it. Defaults to one string property per URL
   * placeholder (required) and per `query` name, and nothing else.
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
}

/** The request time limit when neither the declaration nor the call sets one. */
export const DEFAULT_HTTP_TIMEOUT = 30_000;

const PLACEHOLDER = /\{(\w+)\}/g;
const ENV_REF = /\$\{([A-Za-z0-9_]+)\}/g;
const METHOD = /^[A-Za-z]+$/;
const BODY_MODES: readonly HttpBodyMode[] = ["json", "form", "raw"];
const RESULT_MODES: readonly HttpResultMode[] = ["text", "json", "status+text"];
/** Expanded values shorter than this are not redacted: they would mangle ordinary text. */
const MIN_REDACTED_LENGTH = 4;
const REDACTED = "[redacted]";
/** How long after a signalled budget the tool's own timer still waits for the signal. */
const BACKSTOP_MS = 1_000;

/** The `{placeholder}` names of a URL template, in order, each once. */
function placeholdersOf(url: string): string[] {
  return [...new Set([...url.matchAll(PLACEHOLDER)].map((match) => match[1] as string))];
}

function defaultSchema(placeholders: readonly string[], query: readonly string[]): JSONSchema {
  const properties: Record<string, JSONSchema> = {};
  for (const name of [...placeholders, ...query]) properties[name] ??= { type: "string" };
  return placeholders.length === 0
    ? { type: "object", properties, additionalProperties: false }
    : { type: "object", properties, required: [...placeholders], additionalProperties: false };
}

function check(options: HttpToolOptions): void {
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
  for (const [header, value] of Object.entries(options.headers ?? {})) {
    if (typeof value !== "string")
      throw new TypeError(`${who}: header "${header}" must be a string`);
  }
  if (options.query !== undefined && !options.query.every((name) => typeof name === "string")) {
    throw new TypeError(`${who}: query must be a list of argument names`);
  }
}

/** An argument as text for a URL, a query string or a form; objects become JSON. */
function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "object" && value !== null) return JSON.stringify(value);
  return String(value);
}

/** Removes every expanded secret from text that goes back to the model. */
function redact(output: string, secrets: readonly string[]): string {
  let out = output;
  for (const secret of secrets) out = out.split(secret).join(REDACTED);
  return out;
}

function messageOf(thrown: unknown): string {
  if (thrown instanceof Error) {
    const cause = thrown.cause instanceof Error ? thrown.cause.message : undefined;
    const message = thrown.message || thrown.name;
    return cause !== undefined && cause !== "" ? `${message} (${cause})` : message;
  }
  return String(thrown);
}

function isTimeout(reason: unknown): boolean {
  return reason instanceof Error || reason instanceof DOMException
    ? reason.name === "TimeoutError"
    : false;
}

function reasonOf(reason: unknown): string {
  if (reason instanceof Error || reason instanceof DOMException) return reason.message;
  return reason === undefined ? "aborted" : String(reason);
}

type Prepared =
  | { problem: string }
  | { url: string; headers: Record<string, string>; body?: string; secrets: string[] };

/**
 * Declares an HTTP endpoint as a {@link Tool} (source `"http"`).
 *
 * A call fills the URL's `{placeholders}` from the arguments, sends the arguments named in
 * `query` (all of them for GET and HEAD) as the query string and the rest as the body, with
 * the headers' `${VAR}`s expanded from the environment. A 2xx response's text is the output
 * (`metadata.status` holds the status); any other status is the error result
 * `HTTP <status>: <body>`. The request is aborted when `ctx.signal` aborts or the time limit
 * (`ctx.timeout`, else `timeout`, else 30 s) runs out, with an error result saying which.
 *
 * @example
 * const weather = httpTool({
 *   name: "weather",
 *   description: "Current weather for a city",
 *   url: "https://api.example.com/weather/{city}",
 *   headers: { Authorization: "Bearer ${WEATHER_TOKEN}" },
 * });
 */
export function httpTool(options: HttpToolOptions): Tool {
  check(options);
  const method = (options.method ?? "GET").toUpperCase();
  const template = options.url;
  const placeholders = placeholdersOf(template);
  const query = new Set(options.query ?? []);
  const bodyMode = options.body ?? "json";
  const resultMode = options.resultMode ?? "text";
  const timeoutMs = options.timeout ?? DEFAULT_HTTP_TIMEOUT;
  const headerTemplates = Object.entries(options.headers ?? {});
  const noBody = method === "GET" || method === "HEAD";

  function prepare(args: Record<string, unknown>): Prepared {
    const rest: Record<string, unknown> = { ...args };
    const problems: string[] = [];

    // 1. URL placeholders, each filled once and consumed.
    const url = template.replace(PLACEHOLDER, (_whole, key: string) => {
      const value = rest[key];
      delete rest[key];
      if (value === undefined || value === null) {
        problems.push(`missing argument "${key}" for the URL placeholder {${key}}`);
        return "";
      }
      if (typeof value === "object") {
        problems.push(
          `argument "${key}" for the URL placeholder {${key}} must be a string or number`,
        );
        return "";
      }
      return encodeURIComponent(String(value));
    });
    if (problems.length > 0) return { problem: problems.join("; ") };

    // 2. The query string: the `query` arguments, or every argument for GET and HEAD.
    const params = new URLSearchParams();
    for (const key of Object.keys(rest)) {
      if (!noBody && !query.has(key)) continue;
      const value = rest[key];
      delete rest[key];
      if (value === undefined || value === null) continue;
      for (const item of Array.isArray(value) ? value : [value]) params.append(key, text(item));
    }
    const search = params.toString();
    const fullUrl = search === "" ? url : `${url}${url.includes("?") ? "&" : "?"}${search}`;

    // 3. Headers, with ${VAR} expanded from the environment.
    const env = options.env ?? process.env;
    const headers: Record<string, string> = {};
    const secrets: string[] = [];
    for (const [header, value] of headerTemplates) {
      const expanded = value.replace(ENV_REF, (_whole, variable: string) => {
        const secret = env[variable];
        if (secret === undefined) {
          problems.push(
            `the environment variable ${variable} (used by the header "${header}") is not set`,
          );
          return "";
        }
        if (secret.length >= MIN_REDACTED_LENGTH) secrets.push(secret);
        return secret;
      });
      if (/[\0\r\n]/.test(expanded)) {
        problems.push(`the header "${header}" has an invalid value (a NUL or line break)`);
      }
      headers[header] = expanded;
    }
    if (problems.length > 0) return { problem: problems.join("; ") };
    secrets.sort((a, b) => b.length - a.length);

    // 4. The body: whatever is left, for methods that have one.
    const keys = Object.keys(rest).filter((key) => rest[key] !== undefined);
    if (noBody || keys.length === 0) return { url: fullUrl, headers, secrets };
    const hasContentType = Object.keys(headers).some(
      (header) => header.toLowerCase() === "content-type",
    );
    let body: string;
    if (bodyMode === "json") {
      if (!hasContentType) headers["Content-Type"] = "application/json";
      body = JSON.stringify(rest);
    } else if (bodyMode === "form") {
      if (!hasContentType) headers["Content-Type"] = "application/x-www-form-urlencoded";
      const form = new URLSearchParams();
      for (const key of keys) {
        const value = rest[key];
        if (value === null) continue;
        for (const item of Array.isArray(value) ? value : [value]) form.append(key, text(item));
      }
      body = form.toString();
    } else {
      body = rest.body === undefined || rest.body === null ? "" : text(rest.body);
    }
    return { url: fullUrl, headers, body, secrets };
  }

  const tool: Tool = {
    name: sanitize(options.name),
    description: options.description,
    inputSchema: options.inputSchema ?? defaultSchema(placeholders, [...query]),
    source: "http",
    timeoutMs,
    async execute(args: Record<string, unknown>, ctx?: ToolContext): Promise<ToolResult> {
      let prepared: Prepared;
      try {
        prepared = prepare(args ?? {});
      } catch (thrown) {
        // encodeURIComponent on a lone surrogate, JSON.stringify on a BigInt, …
        return error(`invalid arguments for ${tool.name}: ${messageOf(thrown)}`);
      }
      if ("problem" in prepared) return error(prepared.problem);
      const { url, headers, body, secrets } = prepared;

      const parent = ctx?.signal;
      if (parent?.aborted) return error(`HTTP request cancelled: ${reasonOf(parent.reason)}`);
      const limit = ctx?.timeout ?? timeoutMs;
      const controller = new AbortController();
      let timedOut = false;
      // A caller that gives both a budget and a signal (the client loop) aborts the signal when
      // the budget runs out and reports that itself; this timer is then only a backstop.
      const wait = parent !== undefined && ctx?.timeout !== undefined ? limit + BACKSTOP_MS : limit;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort(new DOMException(`timed out after ${limit}ms`, "TimeoutError"));
      }, wait);
      const onAbort = () => controller.abort(parent?.reason);
      parent?.addEventListener("abort", onAbort, { once: true });
      try {
        const init: RequestInit = { method, headers, signal: controller.signal };
        if (body !== undefined) init.body = body;
        const response = await fetch(url, init);
        const responseText = await response.text();
        const metadata = { status: response.status };
        if (!response.ok) {
          return error(redact(`HTTP ${response.status}: ${responseText}`, secrets), metadata);
        }
        if (resultMode === "status+text")
          return ok(`${response.status}\n${responseText}`, metadata);
        if (resultMode === "json") return ok(JSON.stringify(parseOrText(responseText)), metadata);
        return ok(responseText, metadata);
      } catch (thrown) {
        if (timedOut) return error(`HTTP request timed out after ${limit}ms`);
        if (parent?.aborted) {
          return isTimeout(parent.reason)
            ? error(`HTTP request timed out: ${reasonOf(parent.reason)}`)
            : error(`HTTP request cancelled: ${reasonOf(parent.reason)}`);
        }
        return error(redact(`HTTP request failed: ${messageOf(thrown)}`, secrets));
      } finally {
        clearTimeout(timer);
        parent?.removeEventListener("abort", onAbort);
      }
    },
  };
  if (options.needsApproval !== undefined) tool.needsApproval = options.needsApproval;
  return tool;
}

function parseOrText(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}
