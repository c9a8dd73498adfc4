import {
  error,
  type JSONSchema,
  type Tool,
  type ToolContext,
  type ToolResult,
  type ToolSource,
} from "@toolnexus/core";
import { z } from "zod";
import type * as zc from "zod/v4/core";
import { messageOf, toToolResult } from "./normalize.js";
import { checkJsonSchema } from "./validate.js";

/** A zod object schema or a plain JSON Schema object describing the arguments. */
export type NativeInput = zc.$ZodType<Record<string, unknown>> | JSONSchema;

/** `run`'s argument type: inferred from a zod schema, a plain record otherwise. */
export type ArgsOf<I> = I extends zc.$ZodType ? zc.output<I> : Record<string, unknown>;

interface NativeToolBase<I extends NativeInput | undefined> {
  /** The name the model calls: letters, digits, `_` and `-`, at most 64 characters. */
  name: string;
  /** What the tool does, written for the model. */
  description: string;
  /** The arguments: a zod object schema (validated, and `run`'s args are typed) or JSON Schema. */
  input?: I;
  /** Default time budget for one call, in milliseconds. */
  timeoutMs?: number;
  /** Ask a human before each call (or when the function says so). */
  needsApproval?: boolean | ((args: ArgsOf<I>, ctx: ToolContext) => boolean | Promise<boolean>);
  /** Defaults to `"native"`. */
  source?: ToolSource;
}

/** A native tool whose `run` takes only the arguments. */
export interface NativeToolWithoutContext<I extends NativeInput | undefined>
  extends NativeToolBase<I> {
  ctx?: false;
  run: (args: ArgsOf<I>) => unknown;
}

/** A native tool that opted in with `ctx: true`: `run` always gets a ToolContext. */
export interface NativeToolWithContext<I extends NativeInput | undefined>
  extends NativeToolBase<I> {
  ctx: true;
  run: (args: ArgsOf<I>, ctx: ToolContext) => unknown;
}

/** Either form of {@link nativeTool}'s definition. */
export type NativeToolDefinition<I extends NativeInput | undefined> =
  | NativeToolWithContext<I>
  | NativeToolWithoutContext<I>;

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const NO_INPUT: JSONSchema = { type: "object", properties: {}, additionalProperties: false };

function isZod(input: unknown): input is zc.$ZodType {
  return typeof input === "object" && input !== null && "_zod" in input;
}

function zodToJsonSchema(schema: zc.$ZodType): JSONSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: "input" }) as JSONSchema;
  return json;
}

type Validator = (
  args: Record<string, unknown>,
) => { args: Record<string, unknown> } | { problems: string[] };

function validatorFor(input: NativeInput | undefined): Validator {
  if (input === undefined) return (args) => ({ args });
  if (isZod(input)) {
    return (args) => {
      const parsed = z.safeParse(input, args);
      if (parsed.success) return { args: parsed.data as Record<string, unknown> };
      return {
        problems: parsed.error.issues.map(
          (issue) => `${issue.path.map(String).join(".") || "(arguments)"}: ${issue.message}`,
        ),
      };
    };
  }
  const schema = input as JSONSchema;
  return (args) => {
    const problems = checkJsonSchema(schema, args);
    return problems.length === 0 ? { args } : { problems };
  };
}

/**
 * Turns a plain function into a {@link Tool}.
 *
 * `run` gets the validated arguments; it gets the {@link ToolContext} as a second argument only
 * when you opt in with `ctx: true` (then always an object, even on a direct `execute(args)`).
 * Return a string, any JSON value, nothing, or a ToolResult (e.g. `pending(...)` to ask a human).
 * A throw becomes an error result with its message; invalid arguments become an error result
 * naming each bad field, and `run` is not called.
 *
 * @example
 * const add = nativeTool({
 *   name: "add",
 *   description: "Add two numbers",
 *   input: z.object({ a: z.number(), b: z.number() }),
 *   run: ({ a, b }) => a + b,
 * });
 */
export function nativeTool<I extends NativeInput | undefined = undefined>(
  definition: NativeToolWithContext<I>,
): Tool;
export function nativeTool<I extends NativeInput | undefined = undefined>(
  definition: NativeToolWithoutContext<I>,
): Tool;
export function nativeTool<I extends NativeInput | undefined>(
  definition: NativeToolDefinition<I>,
): Tool {
  const { name, description, input, timeoutMs, needsApproval } = definition;
  if (typeof name !== "string" || !NAME.test(name)) {
    throw new TypeError(
      `nativeTool: name ${JSON.stringify(name)} must be 1-64 characters of [a-zA-Z0-9_-]; sanitize() from @toolnexus/core makes any string fit`,
    );
  }
  if (typeof definition.run !== "function") {
    throw new TypeError(`nativeTool "${name}": run must be a function`);
  }
  if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new TypeError(
      `nativeTool "${name}": timeoutMs must be a positive number of milliseconds`,
    );
  }
  const validate = validatorFor(input);
  const inputSchema: JSONSchema =
    input === undefined
      ? { ...NO_INPUT, properties: {} }
      : isZod(input)
        ? zodToJsonSchema(input)
        : (input as JSONSchema);
  const wantsContext = definition.ctx === true;
  const run = definition.run as (args: unknown, ctx?: ToolContext) => unknown;

  const tool: Tool = {
    name,
    description,
    inputSchema,
    source: definition.source ?? "native",
    async execute(args: Record<string, unknown>, ctx?: ToolContext): Promise<ToolResult> {
      const checked = validate(args ?? {});
      if ("problems" in checked) {
        return error(`invalid arguments for ${name}: ${checked.problems.join("; ")}`);
      }
      try {
        // Exactly one argument unless the tool opted in, so an optional second parameter is
        // never handed a context by surprise.
        const value = wantsContext ? await run(checked.args, ctx ?? {}) : await run(checked.args);
        return toToolResult(value);
      } catch (thrown) {
        return error(messageOf(thrown));
      }
    },
  };
  if (timeoutMs !== undefined) tool.timeoutMs = timeoutMs;
  if (typeof needsApproval === "function") {
    const decide = needsApproval as (args: unknown, ctx: ToolContext) => boolean | Promise<boolean>;
    // Invalid arguments never need approval: the call will fail validation without running.
    tool.needsApproval = (args, ctx) => {
      const checked = validate(args ?? {});
      return "problems" in checked ? false : decide(checked.args, ctx);
    };
  } else if (needsApproval !== undefined) {
    tool.needsApproval = needsApproval;
  }
  return tool;
}
