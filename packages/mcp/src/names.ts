// Names that would collide: servers whose names sanitize alike are refused before any starts;
// a later server offering a tool name an earlier one offers fails, with a reason naming both.
import { sanitize } from "@toolnexus/core";
import { McpConfigError } from "./errors.js";
import type { Server } from "./server.js";

/** Servers whose names sanitize alike would name their tools alike: refused before any starts. */
export function checkServerNames(servers: readonly Server[]): void {
  const byPrefix = new Map<string, string>();
  for (const server of servers) {
    if (server.spec.kind !== "local" && server.spec.kind !== "remote") continue;
    const prefix = sanitize(server.name);
    const before = byPrefix.get(prefix);
    if (before !== undefined) {
      throw new McpConfigError(
        `loadMcp: the MCP servers "${before}" and "${server.name}" would both name their tools ${prefix}_<tool>; rename one of them`,
        [before, server.name],
      );
    }
    byPrefix.set(prefix, server.name);
  }
}

/**
 * Two servers offering the same tool name (`a` with `b_echo`, `a_b` with `echo`): the later one
 * in the config fails, with a reason naming both, and the earlier keeps its tools.
 */
export async function checkToolNames(servers: readonly Server[]): Promise<void> {
  const owner = new Map<string, Server>();
  for (const server of servers) {
    if (server.status !== "connected") continue;
    const clash = server.tools.find((tool) => owner.has(tool.name));
    if (clash === undefined) {
      for (const tool of server.tools) owner.set(tool.name, server);
      continue;
    }
    const first = owner.get(clash.name)!;
    server.fail(
      `its tool "${server.originals.get(clash.name)}" would be named ${clash.name}, as is the tool "${first.originals.get(clash.name)}" of the MCP server "${first.name}"; rename a server or drop the tool with "tools"`,
    );
    await server.close();
  }
}
