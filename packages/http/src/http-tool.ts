import {
  error,
  type JSONSchema,
  ok,
  sanitize,
  type Tool,
  type ToolContext,
  type ToolResult,
} from "@toolnexus/core";
import { declaredNames, fixedKeyProblem, fixedQueryKeys, undeclaredProblem } from "./arguments.js";
import { headerSecrets, urlSecrets } from "./configured-secrets.js";
import {
  checkOptions,
  DEFAULT_HTTP_TIMEOUT,
  DEFAULT_MAX_REDIRECTS,
  DEFAULT_MAX_RESPONSE_BYTES,
  type HttpToolOptions,
} from "./options.js";
import { readCapped } from "./read-body.js";
import { fetchSameOrigin } from "./redirects.js";
import { Secrets } from "./secrets.js";
import { fillTemplate, parseTemplate } from "./url-template.js";

const ENV_REF = /\$\{([A-Za-z0-9_]+)\}/g;
/** How long after a signalled budget the tool's own timer still waits for the signal. */
const BACKSTOP_MS = 1_000;

function defaultSchema(placeholders: readonly string[], query: readonly string[]): JSONSchema {
  const properties: Record<string, JSONSchema> = {};
  for (const name of [...placeholders, ...query]) properties[name] ??= { type: "string" };
  return placeholders.length === 0
    ? { type: "object", properties, additionalProperties: false }
    : { type: "object", properties, required: [...placeholders], additionalProperties: false };
}

/** An argument as text for a query string or a form; objects become JSON. */
function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "object" && value !== null) return JSON.stringify(value);
  return String(value);
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

/** The marker that ends a body cut at the cap. */
function truncationMarker(cap: number): string {
  return `\n\n[output truncated: the response body is longer than ${cap} bytes (maxResponseBytes); the rest was not read]`;
}

type Prepared =
  | { problem: string }
  | { url: string; headers: Record<string, string>; body?: string; secrets: string[] };

/**
 * Declares an HTTP endpoint as a {@link Tool} (source `"http"`).
 *
 * A call fills the URL's `{placeholders}` from the arguments, sends the arguments named in
 * `query` (every declared one for GET and HEAD) as the query string and the rest as the body, with
 * the headers' `${VAR}`s expanded from the environment. An argument the input schema does not
 * declare, or one that would set a query key the URL template already has, is an error result
 * and nothing is sent. A 2xx response's text is the output
 * (`metadata.status` holds the status); any other status is the error result
 * `HTTP <status>: <body>`. Bodies are read up to `maxResponseBytes` (1 MiB) and cut there;
 * same-origin redirects are followed (up to `maxRedirects`, 5), a redirect to another origin is
 * refused. The request is aborted when `ctx.signal` aborts or the time limit (`ctx.timeout`,
 * else `timeout`, else 30 s) runs out, with an error result saying which.
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
  checkOptions(options);
  const method = (options.method ?? "GET").toUpperCase();
  const template = parseTemplate(options.url);
  const query = new Set(options.query ?? []);
  const bodyMode = options.body ?? "json";
  const resultMode = options.resultMode ?? "text";
  const timeoutMs = options.timeout ?? DEFAULT_HTTP_TIMEOUT;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const headerTemplates = Object.entries(options.headers ?? {});
  const noBody = method === "GET" || method === "HEAD";
  // Credentials written in the URL itself; the headers' are found per call, once expanded.
  const templateSecrets = urlSecrets(options.url);
  const inputSchema = options.inputSchema ?? defaultSchema(template.names, [...query]);
  // Model input never widens what the tool may reach: only declared arguments are sent, and
  // none may set a query key the template fixes.
  const isDeclared = declaredNames(inputSchema, [...template.names, ...query]);
  const fixedKeys = fixedQueryKeys(options.url);

  function prepare(args: Record<string, unknown>): Prepared {
    // 0. Arguments the tool does not declare are refused, whatever the method.
    const undeclared = undeclaredProblem(args, isDeclared);
    if (undeclared !== undefined) return { problem: undeclared };

    // 1. URL placeholders: every occurrence filled, each argument then consumed.
    const filled = fillTemplate(template, args);
    if ("problem" in filled) return filled;
    const rest: Record<string, unknown> = { ...args };
    for (const name of template.names) delete rest[name];
    const problems: string[] = [];

    // 2. The query string: the `query` arguments, or every one left for GET and HEAD; never
    // under a key the template already has (a second `scope=` could replace `scope=read`).
    const params = new URLSearchParams();
    const clashes: string[] = [];
    for (const key of Object.keys(rest)) {
      if (!noBody && !query.has(key)) continue;
      const value = rest[key];
      delete rest[key];
      if (value === undefined || value === null) continue;
      if (fixedKeys.has(key.toLowerCase())) clashes.push(key);
      for (const item of Array.isArray(value) ? value : [value]) params.append(key, text(item));
    }
    if (clashes.length > 0) return { problem: fixedKeyProblem(clashes) };
    const search = params.toString();
    // Before the template's fragment, if it has one (filled values are encoded: no raw `#`).
    const hash = filled.url.indexOf("#");
    const url = hash === -1 ? filled.url : filled.url.slice(0, hash);
    const fragment = hash === -1 ? "" : filled.url.slice(hash);
    const fullUrl =
      search === "" ? filled.url : `${url}${url.includes("?") ? "&" : "?"}${search}${fragment}`;

    // 3. Headers, with ${VAR} expanded from the environment. Every expansion is a secret, and
    // so are the literal credentials (configured-secrets.ts).
    const env = options.env ?? process.env;
    const headers: Record<string, string> = {};
    const secrets: string[] = [...templateSecrets];
    for (const [header, value] of headerTemplates) {
      const expanded = value.replace(ENV_REF, (_whole, variable: string) => {
        const secret = Object.hasOwn(env, variable) ? env[variable] : undefined;
        if (typeof secret !== "string") {
          problems.push(
            `the environment variable ${variable} (used by the header "${header}") is not set`,
          );
          return "";
        }
        secrets.push(secret);
        return secret;
      });
      if (/[\0\r\n]/.test(expanded)) {
        problems.push(`the header "${header}" has an invalid value (a NUL or line break)`);
      }
      headers[header] = expanded;
      secrets.push(...headerSecrets(header, expanded));
    }
    if (problems.length > 0) return { problem: problems.join("; ") };

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

  /** Sends the request and turns the response into a result, secrets removed. */
  async function send(
    prepared: Exclude<Prepared, { problem: string }>,
    signal: AbortSignal,
  ): Promise<ToolResult> {
    const { url, headers, body } = prepared;
    const secrets = new Secrets(prepared.secrets);
    const request = { url, method, headers, signal, ...(body === undefined ? {} : { body }) };
    const fetched = await fetchSameOrigin(request, maxRedirects);
    if ("refused" in fetched) {
      return error(secrets.redact(fetched.message), {
        status: fetched.status,
        code: fetched.refused,
      });
    }
    const { response } = fetched;
    const read = await readCapped(response, maxResponseBytes);
    const metadata: Record<string, unknown> = { status: response.status };
    // A cut body is returned as text even in json mode: it cannot be parsed.
    let output = read.truncated ? secrets.redactCut(read.text) : secrets.redact(read.text);
    if (read.truncated) {
      metadata.truncated = true;
      output += truncationMarker(maxResponseBytes);
    } else if (response.ok && resultMode === "json") {
      output = secrets.redact(JSON.stringify(parseOrText(read.text)));
    }
    if (!response.ok) return error(`HTTP ${response.status}: ${output}`, metadata);
    if (resultMode === "status+text") return ok(`${response.status}\n${output}`, metadata);
    return ok(output, metadata);
  }

  const tool: Tool = {
    name: sanitize(options.name),
    description: options.description,
    inputSchema,
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
        return await send(prepared, controller.signal);
      } catch (thrown) {
        if (timedOut) return error(`HTTP request timed out after ${limit}ms`);
        if (parent?.aborted) {
          return isTimeout(parent.reason)
            ? error(`HTTP request timed out: ${reasonOf(parent.reason)}`)
            : error(`HTTP request cancelled: ${reasonOf(parent.reason)}`);
        }
        const secrets = new Secrets(prepared.secrets);
        return error(secrets.redact(`HTTP request failed: ${messageOf(thrown)}`));
      } finally {
        clearTimeout(timer);
        parent?.removeEventListener("abort", onAbort);
        // Whatever is still open (an unread body, a socket) is released now.
        controller.abort();
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
