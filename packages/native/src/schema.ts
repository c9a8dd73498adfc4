import type { StandardJSONSchemaV1, StandardSchemaV1 } from "@standard-schema/spec";
import type { JSONSchema } from "@toolnexus/core";
import { messageOf } from "./normalize.js";
import { compileJsonSchema, type Problems } from "./validate.js";

/**
 * Thrown by `nativeTool` when its `input` cannot be used: a schema the model's JSON Schema
 * cannot be derived from (the message names the fix), a JSON Schema that is not valid, or
 * something that is neither. A `TypeError`, like the other definition mistakes.
 */
export class InputSchemaError extends TypeError {
  override readonly name = "InputSchemaError";
  /** The tool being defined. */
  readonly tool: string;
  /** The Standard Schema vendor (`"zod"`, `"valibot"`, `"arktype"`…), when there is one. */
  readonly vendor: string | undefined;
  constructor(tool: string, vendor: string | undefined, message: string, options?: ErrorOptions) {
    super(`nativeTool "${tool}": ${message}`, options);
    this.tool = tool;
    this.vendor = vendor;
  }
}

/** The outcome of checking one call's arguments. */
export type Checked = { args: Record<string, unknown> } | { problems: Problems };

/** Checks a call's arguments; a Standard Schema may answer asynchronously. */
export type Check = (args: Record<string, unknown>) => Checked | Promise<Checked>;

/** How a tool checks its arguments, and the JSON Schema the model sees. */
export interface ResolvedInput {
  check: Check;
  inputSchema: JSONSchema;
}

const NO_INPUT: JSONSchema = { type: "object", properties: {}, additionalProperties: false };

function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return false;
  const props = (value as Partial<StandardSchemaV1>)["~standard"];
  return typeof props === "object" && props !== null && typeof props.validate === "function";
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value !== "object" || value === null) return String(value);
  if (Array.isArray(value)) return "an array";
  if ("_def" in value && typeof (value as { parse?: unknown }).parse === "function") {
    return 'a zod schema older than 3.24 (it has no "~standard"): upgrade zod';
  }
  return "an object with methods (a schema library without Standard Schema support? upgrade it)";
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The path of a Standard Schema issue as `a.b.0`, or `(arguments)` for the whole object. */
function pathOf(issue: StandardSchemaV1.Issue): string {
  if (issue.path === undefined || issue.path.length === 0) return "(arguments)";
  return issue.path
    .map((segment) => String(typeof segment === "object" ? segment.key : segment))
    .join(".");
}

function fromResult(result: StandardSchemaV1.Result<unknown>): Checked {
  if (result.issues) {
    return { problems: result.issues.map((issue) => `${pathOf(issue)}: ${issue.message}`) };
  }
  return { args: result.value as Record<string, unknown> };
}

function standardCheck(schema: StandardSchemaV1): Check {
  const props = schema["~standard"];
  return (args) => {
    const result = props.validate(args);
    return result instanceof Promise ? result.then(fromResult) : fromResult(result);
  };
}

/** JSON Schema without its `$schema` line, as tools have always sent it. */
function withoutDialect(json: Record<string, unknown>): JSONSchema {
  const { $schema: _dialect, ...rest } = json;
  return rest as JSONSchema;
}

/** What to do about a Standard Schema the JSON Schema cannot be derived from. */
function noConverter(schema: StandardSchemaV1): string {
  const vendor = schema["~standard"].vendor;
  if (vendor === "zod" && !("_zod" in schema)) {
    return (
      "input is a zod 3 schema, and zod 3 cannot produce the JSON Schema the model needs. " +
      'Fix: upgrade to zod 4.2 or later ("npm install zod@^4.2"), or keep zod 3 and pass ' +
      "inputSchema, the arguments' JSON Schema (for example zodToJsonSchema(input) from the " +
      "zod-to-json-schema package). The zod schema still validates the arguments."
    );
  }
  if (vendor === "zod") {
    return (
      "input is a zod schema without a JSON Schema converter of its own (schemas from " +
      '"zod" have one since zod 4.2; "zod/mini", "zod/v4" of zod 3.25 and zod 4.0-4.1 do not). ' +
      'Fix: upgrade ("npm install zod@^4.2") and import from "zod", or pass ' +
      "inputSchema: z.toJSONSchema(input)."
    );
  }
  if (vendor === "valibot") {
    return (
      "input is a valibot schema, and valibot schemas carry no JSON Schema converter. Fix: " +
      'wrap it, input: toStandardJsonSchema(schema) from "@valibot/to-json-schema", or pass ' +
      "inputSchema: toJsonSchema(schema)."
    );
  }
  return (
    `input is a Standard Schema from "${vendor}" without a JSON Schema converter (Standard JSON ` +
    'Schema\'s "~standard.jsonSchema"). Fix: pass inputSchema, the JSON Schema of the arguments.'
  );
}

/** The library's own converter: Standard JSON Schema, else a known method of the schema. */
function converterOf(schema: StandardSchemaV1): (() => unknown) | undefined {
  const props = schema["~standard"] as Partial<StandardJSONSchemaV1.Props>;
  const converter = props.jsonSchema;
  if (typeof converter?.input === "function") {
    return () => {
      try {
        return converter.input({ target: "draft-2020-12" });
      } catch (thrown) {
        // A library may support only draft-07 (and must throw for a target it does not know).
        try {
          return converter.input({ target: "draft-07" });
        } catch {
          throw thrown;
        }
      }
    };
  }
  // arktype before Standard JSON Schema (2.1.2x and earlier) has its own method.
  const toJsonSchema = (schema as { toJsonSchema?: unknown }).toJsonSchema;
  if (props.vendor === "arktype" && typeof toJsonSchema === "function") {
    return () => toJsonSchema.call(schema);
  }
  return undefined;
}

function standardInputSchema(tool: string, schema: StandardSchemaV1): JSONSchema {
  const vendor = schema["~standard"].vendor;
  const convert = converterOf(schema);
  if (convert === undefined) throw new InputSchemaError(tool, vendor, noConverter(schema));
  let json: unknown;
  try {
    json = convert();
  } catch (thrown) {
    throw new InputSchemaError(
      tool,
      vendor,
      `the ${vendor} schema given as input cannot be expressed as JSON Schema (${messageOf(thrown)}). ` +
        "Fix: use JSON-representable types in the schema (the model sends JSON), or pass " +
        "inputSchema, the JSON Schema the model should see.",
      { cause: thrown },
    );
  }
  if (!isPlainObject(json)) {
    throw new InputSchemaError(
      tool,
      vendor,
      `the ${vendor} converter returned ${typeof json}, not a JSON Schema object; pass inputSchema`,
    );
  }
  return withoutDialect(json);
}

function compiled(tool: string, schema: JSONSchema, what: string): Check {
  let check: ReturnType<typeof compileJsonSchema>;
  try {
    check = compileJsonSchema(schema);
  } catch (thrown) {
    throw new InputSchemaError(
      tool,
      undefined,
      `${what} is not a valid JSON Schema: ${messageOf(thrown)}${
        /^items value must be/.test(messageOf(thrown))
          ? ' (a draft-07 tuple: say so with "$schema": "http://json-schema.org/draft-07/schema#", or use 2020-12\'s prefixItems)'
          : ""
      }`,
      { cause: thrown },
    );
  }
  return (args) => {
    const problems = check(args);
    return problems === undefined ? { args } : { problems };
  };
}

/**
 * Works out how a tool validates its arguments and what JSON Schema the model sees, from the
 * definition's `input` and optional `inputSchema`. Throws an {@link InputSchemaError}.
 */
export function resolveInput(tool: string, input: unknown, inputSchema: unknown): ResolvedInput {
  if (inputSchema !== undefined && !isPlainObject(inputSchema)) {
    throw new InputSchemaError(
      tool,
      undefined,
      "inputSchema must be a plain JSON Schema object (what the model sees)",
    );
  }
  if (input === undefined) {
    if (inputSchema !== undefined) {
      throw new InputSchemaError(
        tool,
        undefined,
        "inputSchema needs an input schema to go with it; to describe and validate the arguments with JSON Schema alone, pass it as input",
      );
    }
    return {
      check: (args) => ({ args }),
      inputSchema: { ...NO_INPUT, properties: {} },
    };
  }
  if (isStandardSchema(input)) {
    return {
      check: standardCheck(input),
      inputSchema:
        inputSchema === undefined ? standardInputSchema(tool, input) : (inputSchema as JSONSchema),
    };
  }
  if (!isPlainObject(input) || Object.values(input).some((value) => typeof value === "function")) {
    throw new InputSchemaError(
      tool,
      undefined,
      "input must be a Standard Schema (zod 3.24+, zod 4, valibot 1, arktype 2, …) or a plain JSON " +
        `Schema object, not ${describe(input)}`,
    );
  }
  if (inputSchema !== undefined) {
    throw new InputSchemaError(
      tool,
      undefined,
      "input is already JSON Schema; pass it once, as input (inputSchema goes with a Standard Schema input)",
    );
  }
  return { check: compiled(tool, input as JSONSchema, "input"), inputSchema: input as JSONSchema };
}
