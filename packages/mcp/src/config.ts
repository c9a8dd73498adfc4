// The MCP config file: which servers to start or reach, as the shared contract reads it.
import { readFileSync } from "node:fs";
import { sanitize } from "@toolnexus/core";
import type { McpAuthConfig } from "./oauth/types.js";
import { MIN_LITERAL_ENV_SECRET_LENGTH, MIN_SECRET_LENGTH } from "./scrub.js";

/** Which protocol generation to speak to a server. */
export type McpProtocol = "auto" | "2025" | "2026-07-28";

/**
 * One server entry of an MCP config, as written in `mcp.json` (the Claude desktop / opencode
 * shape). An entry with `url` is remote (Streamable HTTP), one with `command` is local (stdio).
 */
export interface McpServerConfig {
  /** `"local"` / `"stdio"` or `"remote"` / `"http"`; inferred from `command` / `url` when left out. */
  type?: string;
  /** The program to start: a string (with `args`) or the whole command line as an array. */
  command?: string | readonly string[];
  args?: readonly string[];
  /**
   * Variables of a local server's environment (alias: `environment`), besides the few it
   * inherits (see `inheritEnv`); `${ENV_VAR}` in a value is taken from the environment.
   */
  env?: Readonly<Record<string, string>>;
  environment?: Readonly<Record<string, string>>;
  /** Working directory of a local server. */
  cwd?: string;
  /** Endpoint of a remote server (Streamable HTTP). */
  url?: string;
  /** Headers sent to a remote server; `${ENV_VAR}` is taken from the environment. */
  headers?: Readonly<Record<string, string>>;
  /** `false` skips the server (status `disabled`). */
  enabled?: boolean;
  /** `true` skips the server (status `disabled`). */
  disabled?: boolean;
  /**
   * Milliseconds each phase of the start (connect and handshake, listing tools) may take, and
   * how long a call may go without a result or a progress notification. Default 30000.
   */
  timeout?: number;
  /**
   * The most a call may take however much progress the server reports, in milliseconds.
   * Default: ten times `timeout`.
   */
  maxTimeout?: number;
  /**
   * Which of the server's tools to expose, by their original names: with one `true` or more,
   * only those; with only `false`, all but those; names the server lacks are ignored.
   */
  tools?: Readonly<Record<string, boolean>>;
  /**
   * Which protocol generation to speak: `"auto"` (default: ask the server, fall back to the
   * 2025 handshake), `"2025"` (the `initialize` handshake only) or `"2026-07-28"` (pinned).
   */
  protocol?: McpProtocol;
  /**
   * OAuth for a remote server: `true` or an object (see {@link McpAuthConfig}) turns it on,
   * `false` off. Left out, it is on when `loadMcp` is given `oauth`.
   */
  auth?: boolean | McpAuthConfig;
}

/** A server entry after parsing: what to start or reach, or why it is skipped or broken. */
export type McpServerSpec =
  | {
      name: string;
      kind: "local";
      command: string;
      args: string[];
      /** Its own variables, `${ENV}` expanded; never logged. */
      env: Record<string, string>;
      /** The values to scrub from what it says: expanded `${ENV}` values and long literal env values. */
      secrets: string[];
      cwd?: string;
      timeout: number;
      maxTimeout: number;
      tools?: Readonly<Record<string, boolean>>;
      protocol: McpProtocol;
    }
  | {
      name: string;
      kind: "remote";
      url: string;
      /** Header values after `${ENV}` expansion; never logged. */
      headers: Record<string, string>;
      /** The expanded values, so errors can be scrubbed of them. */
      secrets: string[];
      timeout: number;
      maxTimeout: number;
      tools?: Readonly<Record<string, boolean>>;
      protocol: McpProtocol;
      /** Its OAuth settings (`clientSecret` expanded), `false` when turned off, absent when unset. */
      auth?: McpAuthConfig | false;
    }
  | { name: string; kind: "disabled" }
  | { name: string; kind: "invalid"; reason: string };

/** The default per-phase and per-call idle limit, in milliseconds. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** Top-level keys of a config file that hold other sections, never MCP servers. */
const RESERVED = new Set(["builtins", "agents", "a2a", "mcpServer", "$schema"]);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Replaces each `${NAME}` with the environment's value (empty when unset). Returns the text
 * and the values put in, so that callers can keep them out of logs and errors.
 */
export function expandEnv(
  text: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): { value: string; secrets: string[] } {
  const secrets: string[] = [];
  const value = text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, name: string) => {
    const found = env[name] ?? "";
    if (found !== "") secrets.push(found);
    return found;
  });
  return { value, secrets };
}

/** Reads a config: a path to a JSON file, or the parsed object. */
export function readConfig(config: string | Readonly<Record<string, unknown>>): unknown {
  if (typeof config !== "string") return config;
  let text: string;
  try {
    text = readFileSync(config, "utf8");
  } catch (cause) {
    throw new Error(`loadMcp: cannot read the MCP config ${config}: ${(cause as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new Error(`loadMcp: the MCP config ${config} is not JSON: ${(cause as Error).message}`);
  }
}

/** The server map of a config: under `mcpServers`, `servers` or `mcp`, else the object itself. */
function serverMap(config: unknown): Record<string, unknown> {
  if (!isObject(config)) throw new TypeError("loadMcp: the MCP config must be a JSON object");
  for (const key of ["mcpServers", "servers", "mcp"]) {
    const map = config[key];
    if (map === undefined) continue;
    if (!isObject(map))
      throw new TypeError(`loadMcp: "${key}" in the MCP config must be an object`);
    return map;
  }
  const map: Record<string, unknown> = {};
  for (const [name, entry] of Object.entries(config)) if (!RESERVED.has(name)) map[name] = entry;
  return map;
}

function positive(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : fallback;
}

function strings(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isObject(value)) return out;
  for (const [key, v] of Object.entries(value)) if (typeof v === "string") out[key] = v;
  return out;
}

/**
 * Parses an MCP config (a path to a JSON file or the parsed object) into one spec per server,
 * in the file's order. Accepts a top-level `mcpServers`, `servers` or `mcp` object, or the
 * server map itself (then the keys `builtins`, `agents`, `a2a` and `mcpServer` are not servers).
 * Header values are expanded from `env`; a malformed entry becomes `kind: "invalid"`.
 */
export function parseMcpConfig(
  config: string | Readonly<Record<string, unknown>>,
  env: Readonly<Record<string, string | undefined>> = process.env,
): McpServerSpec[] {
  const specs: McpServerSpec[] = [];
  for (const [name, raw] of Object.entries(serverMap(readConfig(config)))) {
    specs.push(parseServer(name, raw, env));
  }
  return specs;
}

function parseServer(
  name: string,
  raw: unknown,
  env: Readonly<Record<string, string | undefined>>,
): McpServerSpec {
  if (!isObject(raw)) return { name, kind: "invalid", reason: "its entry is not an object" };
  const entry = raw as McpServerConfig;
  if (entry.disabled === true || entry.enabled === false) return { name, kind: "disabled" };
  const timeout = positive(entry.timeout, DEFAULT_TIMEOUT_MS);
  const maxTimeout = Math.max(timeout, positive(entry.maxTimeout, timeout * 10));
  const protocol: McpProtocol =
    entry.protocol === "2025" || entry.protocol === "2026-07-28" ? entry.protocol : "auto";
  const tools = isObject(entry.tools) ? (entry.tools as Record<string, boolean>) : undefined;
  const type = typeof entry.type === "string" ? entry.type : undefined;
  const remote =
    type === "remote" || type === "http" || type === "streamable-http" || type === "streamableHttp"
      ? true
      : type === "local" || type === "stdio"
        ? false
        : typeof entry.url === "string"
          ? true
          : entry.command !== undefined
            ? false
            : undefined;
  if (remote === undefined) {
    return { name, kind: "invalid", reason: 'it has neither a "url" nor a "command"' };
  }
  if (remote) {
    if (typeof entry.url !== "string" || entry.url === "") {
      return { name, kind: "invalid", reason: 'a remote server needs a "url"' };
    }
    const headers: Record<string, string> = {};
    const secrets: string[] = [];
    for (const [key, value] of Object.entries(strings(entry.headers))) {
      const expanded = expandEnv(value, env);
      headers[key] = expanded.value;
      // The whole value is a secret too (a literal token in the file).
      secrets.push(...expanded.secrets, expanded.value);
    }
    const url = expandEnv(entry.url, env);
    secrets.push(...url.secrets);
    const auth = parseAuth(entry.auth, env, secrets);
    if (typeof auth === "string") return { name, kind: "invalid", reason: auth };
    const spec: McpServerSpec = {
      name,
      kind: "remote",
      url: url.value,
      headers,
      secrets: secrets.filter((s) => s.length >= MIN_SECRET_LENGTH),
      timeout,
      maxTimeout,
      protocol,
    };
    if (tools !== undefined) spec.tools = tools;
    if (auth !== undefined) spec.auth = auth;
    return spec;
  }
  let argv: string[];
  if (Array.isArray(entry.command)) argv = [...entry.command].map(String);
  else if (typeof entry.command === "string") argv = [entry.command];
  else return { name, kind: "invalid", reason: 'a local server needs a "command"' };
  if (Array.isArray(entry.args)) argv.push(...entry.args.map(String));
  const [command, ...args] = argv;
  if (command === undefined || command === "") {
    return { name, kind: "invalid", reason: 'its "command" is empty' };
  }
  const own: Record<string, string> = {};
  const secrets: string[] = [];
  for (const [key, value] of Object.entries({
    ...strings(entry.environment),
    ...strings(entry.env),
  })) {
    const expanded = expandEnv(value, env);
    own[key] = expanded.value;
    secrets.push(...expanded.secrets.filter((s) => s.length >= MIN_SECRET_LENGTH));
    if (expanded.secrets.length === 0 && value.length >= MIN_LITERAL_ENV_SECRET_LENGTH) {
      secrets.push(value);
    }
  }
  const spec: McpServerSpec = {
    name,
    kind: "local",
    command,
    args,
    env: own,
    secrets,
    timeout,
    maxTimeout,
    protocol,
  };
  if (typeof entry.cwd === "string") spec.cwd = entry.cwd;
  if (tools !== undefined) spec.tools = tools;
  return spec;
}

const GRANTS = new Set(["authorization_code", "client_credentials", "jwt_bearer"]);
const AUTH_METHODS = new Set(["client_secret_basic", "client_secret_post", "none"]);
const AUTH_STRINGS = [
  "clientId",
  "clientSecret",
  "issuer",
  "scope",
  "clientMetadataUrl",
  "privateKey",
  "signingAlgorithm",
  "assertion",
] as const;

/**
 * A remote entry's `auth`: its settings (the secret expanded from `env` and added to
 * `secrets`), `false`, `undefined` when unset, or why it is malformed.
 */
function parseAuth(
  raw: unknown,
  env: Readonly<Record<string, string | undefined>>,
  secrets: string[],
): McpAuthConfig | false | undefined | string {
  if (raw === undefined) return undefined;
  if (raw === false) return false;
  if (raw === true) return {};
  if (!isObject(raw)) return '"auth" must be true, false or an object';
  const auth: McpAuthConfig = {};
  if (raw.grant !== undefined) {
    if (!GRANTS.has(raw.grant as string)) {
      return '"auth.grant" must be "authorization_code", "client_credentials" or "jwt_bearer"';
    }
    auth.grant = raw.grant as McpAuthConfig["grant"];
  }
  if (raw.tokenEndpointAuthMethod !== undefined) {
    if (!AUTH_METHODS.has(raw.tokenEndpointAuthMethod as string)) {
      return '"auth.tokenEndpointAuthMethod" must be "client_secret_basic", "client_secret_post" or "none"';
    }
    auth.tokenEndpointAuthMethod =
      raw.tokenEndpointAuthMethod as McpAuthConfig["tokenEndpointAuthMethod"];
  }
  for (const key of AUTH_STRINGS) {
    const value = raw[key];
    if (value === undefined) continue;
    if (typeof value !== "string" || value === "")
      return `"auth.${key}" must be a non-empty string`;
    const expanded = expandEnv(value, env);
    secrets.push(...expanded.secrets);
    if (key === "clientSecret" || key === "privateKey" || key === "assertion") {
      secrets.push(expanded.value);
    }
    auth[key] = expanded.value;
  }
  if (raw.dpop !== undefined) {
    if (typeof raw.dpop !== "boolean") return '"auth.dpop" must be true or false';
    auth.dpop = raw.dpop;
  }
  if (
    auth.grant === "client_credentials" &&
    (auth.clientId === undefined ||
      (auth.clientSecret === undefined && auth.privateKey === undefined))
  ) {
    return 'the "client_credentials" grant needs "auth.clientId" and "auth.clientSecret" or "auth.privateKey"';
  }
  return auth;
}

/** The toolnexus name of a server's tool: `sanitize(server) + "_" + sanitize(tool)`. */
export function mcpToolName(server: string, tool: string): string {
  return `${sanitize(server)}_${sanitize(tool)}`;
}

/** Applies a server's `tools` map to its tool names (the contract's allowlist/drop-list rule). */
export function allowedTools(
  names: readonly string[],
  filter: Readonly<Record<string, boolean>> | undefined,
): string[] {
  if (filter === undefined) return [...names];
  const entries = Object.entries(filter);
  if (entries.length === 0) return [...names];
  if (entries.some(([, on]) => on === true)) {
    return names.filter((name) => filter[name] === true);
  }
  return names.filter((name) => filter[name] !== false);
}
