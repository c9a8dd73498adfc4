// Fingerprints of a server's tool definitions, so a host can approve them once and notice when
// the server changes them later (a swapped description is a known way to steer a model).
// Canonical JSON (keys sorted, no whitespace) hashed with SHA-256: the same definition always
// gives the same fingerprint, whatever order the server writes its keys in.
import { createHash } from "node:crypto";

/** A tool definition as `tools/list` gives it (the parts a fingerprint covers). */
export interface PinnedToolDefinition {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  annotations?: unknown;
}

/** The parts of a tool a fingerprint covers, each hashed on its own to tell what changed. */
export type McpToolField = "title" | "description" | "inputSchema" | "annotations";

const FIELDS: readonly McpToolField[] = ["title", "description", "inputSchema", "annotations"];

/** One tool's fingerprint: the whole definition's hash and each part's (hex SHA-256). */
export interface McpToolFingerprint {
  fingerprint: string;
  title: string;
  description: string;
  inputSchema: string;
  annotations: string;
}

/** A server's fingerprint: one hash over all its tools, and each tool's. JSON, for the host to store. */
export interface McpServerFingerprint {
  fingerprint: string;
  tools: Record<string, McpToolFingerprint>;
}

/** What changed in one tool since it was approved. */
export type McpToolChange =
  | { tool: string; kind: "added" }
  | { tool: string; kind: "removed" }
  | { tool: string; kind: "changed"; fields: McpToolField[] };

/** Deeper than this a value is hashed as a marker (a schema is never that deep in earnest). */
const MAX_DEPTH = 64;

/** JSON with object keys sorted at every level and `undefined` members left out. */
export function canonicalJson(value: unknown, depth = 0): string {
  if (depth > MAX_DEPTH) return '"[too deep]"';
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) {
    return `[${value.map((item) => canonicalJson(item === undefined ? null : item, depth + 1)).join(",")}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, member]) => member !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member, depth + 1)}`).join(",")}}`;
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The fingerprint of one tool definition. */
export function toolFingerprint(tool: PinnedToolDefinition): McpToolFingerprint {
  const whole = {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: tool.annotations,
  };
  const parts = Object.fromEntries(
    FIELDS.map((field) => [field, sha256(canonicalJson(tool[field] ?? null))]),
  ) as Record<McpToolField, string>;
  return { fingerprint: sha256(canonicalJson(whole)), ...parts };
}

/** The fingerprint of a server's tools (in any order: the server hash covers them sorted by name). */
export function fingerprintTools(tools: readonly PinnedToolDefinition[]): McpServerFingerprint {
  const byName: Record<string, McpToolFingerprint> = {};
  for (const tool of tools) byName[tool.name] = toolFingerprint(tool);
  const pairs = Object.keys(byName)
    .sort()
    .map((name) => [name, byName[name]!.fingerprint]);
  return { fingerprint: sha256(canonicalJson(pairs)), tools: byName };
}

/** The changes from `approved` to `current`: tools added, removed, and changed (with which parts). */
export function compareFingerprints(
  approved: McpServerFingerprint,
  current: McpServerFingerprint,
): McpToolChange[] {
  if (approved.fingerprint === current.fingerprint) return [];
  const changes: McpToolChange[] = [];
  const names = new Set([...Object.keys(approved.tools), ...Object.keys(current.tools)]);
  for (const tool of [...names].sort()) {
    const before = approved.tools[tool];
    const after = current.tools[tool];
    if (before === undefined) changes.push({ tool, kind: "added" });
    else if (after === undefined) changes.push({ tool, kind: "removed" });
    else if (before.fingerprint !== after.fingerprint) {
      const fields = FIELDS.filter((field) => before[field] !== after[field]);
      changes.push({ tool, kind: "changed", fields });
    }
  }
  return changes;
}

function describe(change: McpToolChange): string {
  if (change.kind === "changed") return `"${change.tool}" changed (${change.fields.join(", ")})`;
  return `"${change.tool}" ${change.kind}`;
}

/** A server's tool definitions differ from the approved ones. */
export class McpToolsChangedError extends Error {
  override readonly name = "McpToolsChangedError";

  constructor(
    /** The server's config name. */
    readonly server: string,
    /** Each tool added, removed or changed, with the parts that changed. */
    readonly changes: readonly McpToolChange[],
    /** The fingerprint the server has now (to store once a person approves it). */
    readonly current: McpServerFingerprint,
  ) {
    const listed = changes.slice(0, 10).map(describe).join(", ");
    const more = changes.length > 10 ? ` and ${changes.length - 10} more` : "";
    super(
      `the tools of the MCP server "${server}" differ from the approved ones: ${listed}${more}`,
    );
  }
}
