// How much a server may send us: one message, one SSE stream, one call's output. A server is
// not trusted to be small: past these limits its answer fails (or is cut), never held whole.
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from "@modelcontextprotocol/client";
import type { LoadMcpOptions } from "./types.js";

/** Default `maxMessageBytes`: 10 MiB, the SDK's cap on one stdio line, for every transport. */
export const DEFAULT_MAX_MESSAGE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;
/** Default `maxStreamBytes`: 64 MiB over one SSE response stream. */
export const DEFAULT_MAX_STREAM_BYTES = 64 * 1024 * 1024;
/** Default `maxOutputChars`: the same as `@toolnexus/mcp-server` sends at most. */
export const DEFAULT_MAX_OUTPUT_CHARS = 1_000_000;
/**
 * How much of an error response's body (a status other than 2xx) is read: it is only quoted in
 * the error, so it is cut there and the rest is never downloaded.
 */
export const ERROR_BODY_BYTES = 64 * 1024;

/** The limits of one load, validated. */
export interface McpLimits {
  maxMessageBytes: number;
  maxStreamBytes: number;
  maxOutputChars: number;
}

/** The load's limits, defaults filled in; a TypeError names an option that is not a count >= 1. */
export function limitsOf(options: LoadMcpOptions): McpLimits {
  const limits: McpLimits = {
    maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    maxStreamBytes: options.maxStreamBytes ?? DEFAULT_MAX_STREAM_BYTES,
    maxOutputChars: options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS,
  };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new TypeError(`loadMcp: ${name} must be a whole number >= 1, got ${value}`);
    }
  }
  return limits;
}
