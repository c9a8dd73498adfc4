import type { Tool } from "@toolnexus/core";
import type { ClashRule, ToolClash, ToolOrigin, ToolOriginKind } from "./types.js";

/** A tool and where it came from. */
export interface Entry {
  tool: Tool;
  origin: ToolOrigin;
  /** An HTTP declaration's own name, when `httpTool` changed it (sanitize). */
  declaredAs?: string;
}

export function entriesOf(
  kind: ToolOriginKind,
  tools: readonly Tool[],
  declared?: readonly string[],
): Entry[] {
  return tools.map((tool, index) => {
    const entry: Entry = { tool, origin: { kind, index, source: String(tool.source) } };
    const name = declared?.[index];
    if (name !== undefined && name !== tool.name) entry.declaredAs = name;
    return entry;
  });
}

/** A tool's origin for a message: `extraTools[2] (source "native")`, `the built-in tool`… */
export function describeOrigin(origin: ToolOrigin, declaredAs?: string): string {
  switch (origin.kind) {
    case "mcp":
      return `the MCP tool at mcp.tools()[${origin.index}]`;
    case "skill":
      return "the skill tool";
    case "builtin":
      return "the built-in tool";
    case "http":
      return declaredAs === undefined
        ? `http[${origin.index}]`
        : `http[${origin.index}] (declared as "${declaredAs}")`;
    case "extraTools":
      return `extraTools[${origin.index}] (source "${origin.source}")`;
  }
}

function clash(rule: ClashRule, kept: Entry, dropped: Entry): ToolClash {
  const name = kept.tool.name;
  const keptText = describeOrigin(kept.origin, kept.declaredAs);
  const droppedText = describeOrigin(dropped.origin, dropped.declaredAs);
  const message =
    rule === "shadowed-builtin"
      ? `tool "${name}": ${keptText} replaces ${droppedText} (a host tool shadows the built-in of the same name)`
      : `tool "${name}": kept ${keptText}, dropped ${droppedText} (first wins: MCP > skill > built-in > host tools)`;
  return { name, kept: { ...kept.origin }, dropped: { ...dropped.origin }, rule, message };
}

/** The sources of one toolkit, each in its own order. */
export interface Sources {
  mcp: readonly Entry[];
  skill: readonly Entry[];
  builtin: readonly Entry[];
  /** `extraTools` then `http`: the host's tools, names already checked to be unique. */
  host: readonly Entry[];
  disabled: ReadonlySet<string>;
}

/**
 * The contract's assembly (toolnexus SPEC §4): (1) drop every built-in a host tool names,
 * (2) concatenate MCP → skill → built-in → host tools, (3) dedupe by name, first wins. Tools
 * named in `disabled` are left out before the dedupe. Every clash is returned, in order.
 */
export function assemble(sources: Sources): { tools: Map<string, Entry>; clashes: ToolClash[] } {
  const clashes: ToolClash[] = [];
  const hostByName = new Map<string, Entry>();
  for (const entry of sources.host) {
    if (!sources.disabled.has(entry.tool.name)) hostByName.set(entry.tool.name, entry);
  }
  const builtins: Entry[] = [];
  for (const entry of sources.builtin) {
    const host = hostByName.get(entry.tool.name);
    if (host === undefined) builtins.push(entry);
    else clashes.push(clash("shadowed-builtin", host, entry));
  }
  const tools = new Map<string, Entry>();
  for (const entry of [...sources.mcp, ...sources.skill, ...builtins, ...sources.host]) {
    const name = entry.tool.name;
    if (sources.disabled.has(name)) continue;
    const first = tools.get(name);
    if (first === undefined) tools.set(name, entry);
    else clashes.push(clash("first-wins", first, entry));
  }
  return { tools, clashes };
}
