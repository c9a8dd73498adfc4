// A server's tools as the loop sees them: the ones its config keeps, named `<server>_<tool>`,
// with scrubbed descriptions and schemas, each calling the server through call.ts.
import type { JSONSchema, Tool } from "@toolnexus/core";
import { callTool } from "./call.js";
import { allowedTools, mcpToolName } from "./config.js";
import { type ActiveSpec, isObject, type ServerConnection } from "./connection.js";

/** A tool as `tools/list` describes it. */
export interface ListedTool {
  name: string;
  description?: string;
  inputSchema?: unknown;
  title?: string;
  annotations?: unknown;
  /** 2025 servers: whether a call may or must be a task (`taskSupport`). */
  execution?: { taskSupport?: unknown };
}

/** The listed tools the server's config keeps (what pinning fingerprints). */
export function keptTools(server: ServerConnection, listed: readonly ListedTool[]): ListedTool[] {
  const kept = new Set(
    allowedTools(
      listed.map((tool) => tool.name),
      (server.spec as ActiveSpec).tools,
    ),
  );
  return listed.filter((tool) => kept.has(tool.name));
}

/**
 * The tools to offer of those listed, in the config's order; each exposed name's original name
 * goes into `originals`. Throws when two of them would get one name.
 */
export function offeredTools(
  server: ServerConnection,
  listed: readonly ListedTool[],
  originals: Map<string, string>,
): Tool[] {
  const byName = new Map(listed.map((tool) => [tool.name, tool]));
  const kept = allowedTools([...byName.keys()], (server.spec as ActiveSpec).tools);
  // Two of its own tools that sanitize to one name (`a.b` and `a_b`) cannot both be offered.
  const seen = new Map<string, string>();
  for (const original of kept) {
    const exposed = mcpToolName(server.name, original);
    const before = seen.get(exposed);
    if (before !== undefined) {
      throw new Error(
        `its tools "${before}" and "${original}" would both be named ${exposed}; drop one with "tools": { "${original}": false }`,
      );
    }
    seen.set(exposed, original);
  }
  return kept.map((original) => {
    const tool = toTool(server, byName.get(original)!);
    originals.set(tool.name, original);
    return tool;
  });
}

function toTool(server: ServerConnection, def: ListedTool): Tool {
  const name = mcpToolName(server.name, def.name);
  const inputSchema = server.scrub.deep(
    isObject(def.inputSchema) ? def.inputSchema : { type: "object" },
  ) as JSONSchema;
  return {
    name,
    description: server.scrub.text(def.description ?? def.title ?? def.name),
    inputSchema,
    source: "mcp",
    // A declined question is the server's to hear (decline/cancel), not the loop's to answer.
    handlesRefusals: true,
    maxSuspensions: server.options.maxRounds ?? 8,
    // A server whose changed tools were refused (pinning) is not called any more.
    execute: (args, ctx) =>
      server.refused === undefined
        ? callTool(server, def.name, name, args ?? {}, ctx, {
            task: def.execution?.taskSupport === "required",
          })
        : Promise.reject(server.refused),
  };
}
