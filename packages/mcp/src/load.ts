// Connecting to the MCP servers of a config and offering their tools.
import { parseMcpConfig, readConfig } from "./config.js";
import { limitsOf } from "./limits.js";
import { checkServerNames, checkToolNames } from "./names.js";
import { Scrubber } from "./scrub.js";
import { Server } from "./server.js";
import { watchTasks } from "./task-watch.js";
import type { LoadMcpOptions, McpToolset } from "./types.js";

export type {
  LoadMcpOptions,
  McpRoot,
  McpSampling,
  McpServerInfo,
  McpServerStatus,
  McpToolset,
  McpWaitFor,
  McpWaitInfo,
} from "./types.js";

/**
 * Connects to every server of an MCP config (a path to a JSON file or the parsed object) and
 * gives their tools. A server that cannot start, connect or list its tools within its `timeout`
 * is isolated: status `failed` with the reason, no tools, and the others load as usual. Has the
 * shape of the toolkit's MCP loader: `createToolkit({ mcpConfig, mcp: loadMcp })`.
 *
 * Rejects for an unreadable config, for two servers whose names sanitize alike
 * ({@link McpConfigError}, before any server starts), and when `options.signal` aborts (every
 * server started so far is stopped with its process tree, and none starts after).
 *
 * @example
 * const mcp = await loadMcp({ mcpServers: { everything: { command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] } } });
 * const client = createClient({ model, tools: mcp.tools() });
 */
export async function loadMcp(
  config: string | Readonly<Record<string, unknown>>,
  options: LoadMcpOptions = {},
): Promise<McpToolset> {
  const { signal } = options;
  signal?.throwIfAborted();
  const limits = limitsOf(options);
  const specs = parseMcpConfig(
    readConfig(config) as Record<string, unknown>,
    options.env ?? process.env,
  );
  // One scrubber for all: a secret of one server is kept out of what any server says.
  const secrets = specs.flatMap((spec) =>
    spec.kind === "local" || spec.kind === "remote" ? spec.secrets : [],
  );
  const scrub = new Scrubber(secrets);
  const servers = specs.map((spec) => new Server(spec, options, scrub, limits, secrets));
  checkServerNames(servers);
  // Every start settles (an abort ends each at once) before loadMcp answers, so after a
  // rejection no server is still starting, and none starts later.
  const started = await Promise.allSettled(servers.map((server) => server.start(signal)));
  const failed = started.find((outcome) => outcome.status === "rejected");
  if (failed !== undefined || signal?.aborted) {
    await Promise.all(servers.map((server) => server.close()));
    throw failed?.reason ?? signal?.reason;
  }
  await checkToolNames(servers);
  let closing: Promise<void> | undefined;
  return {
    tools: () => servers.flatMap((server) => (server.status === "connected" ? server.tools : [])),
    status: () => Object.fromEntries(servers.map((server) => [server.name, server.status])),
    servers: () => servers.map((server) => server.info()),
    watchTasks: (watch) =>
      watchTasks(new Map(servers.map((server) => [server.name, server])), watch),
    close: () => {
      closing ??= Promise.all(servers.map((server) => server.close())).then(() => {});
      return closing;
    },
  };
}
