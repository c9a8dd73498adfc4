// stdio: the way Claude Desktop, Claude Code and most local hosts start an MCP server. The
// connection's first message picks the era (2025 `initialize` or a 2026 request).
import type { Readable, Writable } from "node:stream";
import { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";
import type { McpServeOptions } from "./options.js";
import { mcpServerFactory } from "./server.js";

/** Options of {@link serveMcpStdio}: the served toolkit's, and other streams than stdio. */
export interface McpStdioOptions extends McpServeOptions {
  /** Read messages from here instead of `process.stdin`. */
  stdin?: Readable;
  /** Write messages here instead of `process.stdout`. */
  stdout?: Writable;
  /** Largest message, in bytes. Default 4 MiB. */
  maxMessageBytes?: number;
}

/** A running stdio server. */
export interface McpStdioHandle {
  /** Ends the connection. */
  close(): Promise<void>;
}

/**
 * Serves `options.tools` over stdio. Write nothing else to stdout (log to stderr): every line
 * there is a protocol message.
 */
export function serveMcpStdio(options: McpStdioOptions): McpStdioHandle {
  const transport = new StdioServerTransport(options.stdin, options.stdout, {
    maxBufferSize: options.maxMessageBytes ?? 4 * 1024 * 1024,
  });
  const handle = serveStdio(mcpServerFactory(options), { transport });
  return { close: () => handle.close() };
}
