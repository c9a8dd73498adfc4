// What the HTTP server adds to the served toolkit's options, with its defaults.
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { McpServeOptions } from "./options.js";

/** Options of {@link serveMcpHttp}. */
export interface McpHttpOptions extends McpServeOptions {
  /** The interface to listen on. Default `"127.0.0.1"` (this machine only). */
  host?: string;
  /** The port; `0` (default) picks a free one (read it from the handle's `url`). */
  port?: number;
  /** The endpoint's path. Default `"/mcp"`. */
  path?: string;
  /** Largest request body, in bytes; larger ones get `413`. Default 4 MiB. */
  maxBodyBytes?: number;
  /** Most open 2025-era sessions; a new one past it gets `503`. Default 100. */
  maxSessions?: number;
  /** A 2025-era session unused this long (ms) is closed. Default 30 minutes. */
  sessionIdleMs?: number;
  /**
   * Host names the `Host` header may name (DNS-rebinding protection). Default: the localhost
   * names when `host` is a loopback address, else no check.
   */
  allowedHosts?: string[];
  /** Origins' host names a browser request may come from. Default as for `allowedHosts`. */
  allowedOrigins?: string[];
  /**
   * Checks who calls: resolve to the request's validated identity (tools see its client id and
   * scopes, never the token), or to a `Response` that refuses it (a `401` challenge). The
   * SDK's `requireBearerAuth({ verifier })` fits here. Default: no authentication.
   */
  authenticate?: (request: Request) => Promise<AuthInfo | Response> | AuthInfo | Response;
}

export const HTTP_DEFAULTS = {
  host: "127.0.0.1",
  port: 0,
  path: "/mcp",
  maxBodyBytes: 4 * 1024 * 1024,
  maxSessions: 100,
  sessionIdleMs: 30 * 60_000,
} as const;
