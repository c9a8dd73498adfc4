import type { ToolContext } from "./context.js";
import type { ToolMigration } from "./redeploy.js";
import type { ToolResult } from "./result.js";
import type { WaitRules } from "./waiting.js";

/**
 * A JSON Schema object describing a tool's arguments, as sent to the model. Kept structural on
 * purpose: any draft-07 / 2020-12 object schema fits.
 */
export interface JSONSchema {
  type?: string | string[];
  properties?: Record<string, JSONSchema>;
  required?: string[];
  additionalProperties?: boolean | JSONSchema;
  items?: JSONSchema | JSONSchema[];
  enum?: unknown[];
  description?: string;
  [keyword: string]: unknown;
}

/**
 * Where a tool comes from: `"native"` for plain functions wrapped by `@toolnexus/native`,
 * `"mcp"` for a Model Context Protocol server, `"custom"` for hand-written tools, or any other
 * label an integration chooses.
 */
export type ToolSource = "native" | "mcp" | "custom" | (string & {});

/**
 * The one contract every tool implements: `execute(args, ctx) -> ToolResult`.
 *
 * Implement it directly for full control, or build one from a plain function with
 * `nativeTool` from `@toolnexus/native`.
 */
export interface Tool {
  /** The name the model calls; keep it to `[a-zA-Z0-9_-]` (see {@link sanitize}). */
  name: string;
  /** What the tool does, written for the model. */
  description: string;
  /** JSON Schema of the arguments object. */
  inputSchema: JSONSchema;
  /** Where the tool comes from. */
  source: ToolSource;
  /** Default time budget for one call of this tool, in milliseconds. */
  timeoutMs?: number;
  /**
   * When true (or when the function returns true), the client asks a human for approval
   * (a `kind: "approval"` Request) before the tool runs, and runs it only after an ok Answer.
   */
  needsApproval?:
    | boolean
    | ((args: Record<string, unknown>, ctx: ToolContext) => boolean | Promise<boolean>);
  /**
   * The prompt of the approval Request that {@link needsApproval} asks, written for the human
   * who decides (e.g. `"Deploy 1.4.2 to production?"` from the call's arguments). Defaults to
   * `Allow <name> to run with <arguments as JSON>?`, which is also used when this throws or
   * returns an empty string.
   */
  approvalPrompt?: (args: Record<string, unknown>) => string;
  /**
   * When true, a declined or expired answer runs the tool again with the not-ok Answer in
   * `ctx.answer`, so it can handle the refusal itself (clean up, explain, pass it on). By
   * default the loop answers the model with `declined/expired: <prompt>` and does not run it.
   */
  handlesRefusals?: boolean;
  /**
   * How many suspensions one call of this tool may raise one after another: after the answer
   * to one, the re-execution may ask a new question, up to this many in all (a sub-agent's
   * questions, an MCP server's rounds of `input_required`). Default 1: a re-execution that
   * suspends again is answered to the model as `unresolved: <prompt>`. The count is kept in
   * durable checkpoints, so it holds across processes.
   */
  maxSuspensions?: number;
  /**
   * Hints about what the tool does, for approval policies and hosts (MCP's `readOnlyHint`,
   * `destructiveHint`, or your own labels such as `{ deletes: true }`). Never sent to the model.
   */
  annotations?: Record<string, unknown>;
  /**
   * While one of this tool's questions waits (its own `pending()` or an approval): reminders,
   * an escalation to someone else, and the answer it gets on expiry. See {@link WaitRules}.
   */
  waitRules?: WaitRules;
  /**
   * Names this tool had in earlier releases. A durable run halted on a call of the tool under
   * one of them continues with this tool (a redeploy that renamed it); the call keeps its
   * arguments unless its input schema changed too (see {@link migrate}).
   */
  previousNames?: readonly string[];
  /**
   * Carries calls made against an earlier input schema over to this one, so runs halted before
   * a redeploy continue after it. Without it, continuing such a run fails with a
   * `ToolChangedError`. See {@link ToolMigration}.
   */
  migrate?: ToolMigration;
  /** Run the tool. Must resolve to a ToolResult; the client turns throws into error results. */
  execute(args: Record<string, unknown>, ctx?: ToolContext): Promise<ToolResult>;
}

// Kept on the function under a registry symbol, so two copies of core loaded side by side agree.
const CONTEXT_FREE = Symbol.for("toolnexus.contextFree");

/**
 * Marks a tool's `execute` as one that never reads its second argument, the ToolContext: the
 * client may then call it without building one (a context per call is a measurable share of a
 * tool round trip). The mark is on the function, not the tool, so a wrapper that brings an
 * `execute` of its own is never taken for context-free. `nativeTool` marks the tools defined
 * without `ctx: true`. Returns `execute`.
 */
export function markContextFree<F extends Tool["execute"]>(execute: F): F {
  if (typeof execute !== "function") {
    throw new TypeError("markContextFree(): execute must be a function");
  }
  Object.defineProperty(execute, CONTEXT_FREE, { value: true });
  return execute;
}

/** True when `execute` was marked with {@link markContextFree}. */
export function isContextFree(execute: unknown): boolean {
  return (
    typeof execute === "function" &&
    (execute as unknown as Record<symbol, unknown>)[CONTEXT_FREE] === true
  );
}

/** The part of a {@link Tool} a model sees: its name, description and argument schema. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: JSONSchema;
}

/**
 * Makes a string safe as a tool name for every provider: each character outside
 * `[a-zA-Z0-9_-]` becomes `_`. Use it on names that come from elsewhere (MCP servers, files).
 *
 * @example sanitize("github.search issues") // "github_search_issues"
 */
export function sanitize(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, "_");
}
