// The wrapper every built-in goes through: argument reading with clear messages, a throw never
// crossing the Tool boundary, and the options every built-in shares.
import type { JSONSchema, Tool, ToolContext, ToolResult } from "@toolnexus/core";
import { error } from "@toolnexus/core";
import { CallLimit } from "./limit.js";
import type { BuiltinName, BuiltinToolOptions } from "./options.js";
import { approvalRule } from "./options.js";

/** A bad argument: the wrapper turns it into the error result `<tool>: <message>`. */
export class ArgumentError extends Error {}

export type Args = Record<string, unknown>;

/** A required string; the empty string counts as missing. */
export function requiredString(args: Args, key: string): string {
  const value = args[key];
  if (value === undefined || value === null || value === "") {
    throw new ArgumentError(`${key} is required`);
  }
  if (typeof value !== "string") throw new ArgumentError(`${key} must be a string`);
  return value;
}

/** A string that may be left out (undefined, null or ""). */
export function optionalString(args: Args, key: string): string | undefined {
  const value = args[key];
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string") throw new ArgumentError(`${key} must be a string`);
  return value;
}

/** A string that must be present but may be empty (file contents, replacement text). */
export function presentString(args: Args, key: string): string {
  const value = args[key];
  if (value === undefined || value === null) throw new ArgumentError(`${key} is required`);
  if (typeof value !== "string") throw new ArgumentError(`${key} must be a string`);
  return value;
}

export function optionalNumber(args: Args, key: string): number | undefined {
  const value = args[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new ArgumentError(`${key} must be a number`);
  }
  return value;
}

/** A number that must be greater than zero when given. */
export function optionalPositive(args: Args, key: string): number | undefined {
  const value = optionalNumber(args, key);
  if (value !== undefined && value <= 0) {
    throw new ArgumentError(`${key} must be greater than 0`);
  }
  return value;
}

export function optionalBoolean(args: Args, key: string): boolean | undefined {
  const value = args[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") throw new ArgumentError(`${key} must be a boolean`);
  return value;
}

export function messageOf(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}

export interface BuiltinDefinition {
  name: BuiltinName;
  description: string;
  inputSchema: JSONSchema;
  run(args: Args, ctx: ToolContext): Promise<ToolResult>;
}

/** A built-in Tool: `source: "builtin"`, its approval rule from the options, no throws. */
export function defineBuiltin(definition: BuiltinDefinition, options: BuiltinToolOptions): Tool {
  const { name, run } = definition;
  const tool: Tool = {
    name,
    description: definition.description,
    inputSchema: definition.inputSchema,
    source: "builtin",
    async execute(args: Record<string, unknown>, ctx?: ToolContext): Promise<ToolResult> {
      if (typeof args !== "object" || args === null || Array.isArray(args)) {
        return error(`${name}: arguments must be a JSON object`);
      }
      if (ctx?.signal?.aborted) {
        const limit = new CallLimit(ctx);
        limit.dispose();
        return error(`${name}: ${limit.describe()}`);
      }
      try {
        return await run(args, ctx ?? {});
      } catch (thrown) {
        return error(`${name}: ${messageOf(thrown)}`);
      }
    },
  };
  const rule = approvalRule(name, options);
  if (rule !== undefined && rule !== false) tool.needsApproval = rule;
  return tool;
}
