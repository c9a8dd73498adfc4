import type { JSONSchema } from "@toolnexus/core";
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";

// Plain JSON Schema input is validated in full (nested objects, arrays, numeric and string
// bounds, enums, combinators, $ref) by ajv. Each schema is compiled once, when the tool is
// defined; a call then costs one generated function call.

/** Problems with arguments, one readable string per bad field. */
export type Problems = string[];

/** Checks arguments against a compiled schema: `undefined` when they are valid. */
export type JsonSchemaCheck = (args: unknown) => Problems | undefined;

const OPTIONS: Options = {
  allErrors: true, // name every bad field, not just the first
  verbose: true, // errors carry the offending value, for "received <type>"
  strict: false, // unknown keywords (vendor extensions, annotations) are ignored, not fatal
  validateFormats: false, // `format` is an annotation, as in draft 2020-12's default vocabulary
  addUsedSchema: false, // a schema's $id never collides with another tool's
  // Compiling checks each keyword's value (`required` must be an array, `type` a JSON type, a
  // `$ref` must resolve, a pattern must parse); checking the whole schema against the draft's
  // meta-schema as well would add about 40 ms to the first tool and catch little more.
  validateSchema: false,
};

let ajv2020: Ajv2020 | undefined;
let ajv07: Ajv | undefined;

/** Draft-04/06/07 schemas that say so get the draft-07 validator; everything else 2020-12. */
function validatorFor(dialect: unknown): Ajv | Ajv2020 {
  if (typeof dialect === "string" && /draft-0[4-7]/.test(dialect)) {
    ajv07 ??= new Ajv(OPTIONS);
    return ajv07;
  }
  ajv2020 ??= new Ajv2020(OPTIONS);
  return ajv2020;
}

/**
 * Compiles `schema` once. Throws (with ajv's reason) when it is not a valid JSON Schema or
 * uses a `$ref` it cannot resolve.
 */
export function compileJsonSchema(schema: JSONSchema): JsonSchemaCheck {
  // The dialect only picks the validator; the meta-schema URI itself need not be known to ajv.
  const { $schema: dialect, ...body } = schema;
  const ajv = validatorFor(dialect);
  let compiled: ValidateFunction;
  try {
    compiled = ajv.compile(body);
  } finally {
    // ajv caches every compiled schema by identity; drop it so defining tools never leaks.
    ajv.removeSchema(body);
  }
  return (args) => (compiled(args) ? undefined : problemsOf(compiled.errors ?? []));
}

/** At most this many problems are listed; a runaway array must not make a huge message. */
const MAX_PROBLEMS = 20;

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** `/who/age` -> `who.age` (RFC 6901 escapes undone); the top level is `(arguments)`. */
function fieldOf(pointer: string, child?: string): string {
  const parts = pointer === "" ? [] : pointer.slice(1).split("/");
  if (child !== undefined) parts.push(child);
  if (parts.length === 0) return "(arguments)";
  return parts.map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~")).join(".");
}

function problemOf(error: ErrorObject): string {
  const { keyword, params, instancePath } = error;
  switch (keyword) {
    case "required":
      return `${fieldOf(instancePath, String(params.missingProperty))}: required`;
    case "additionalProperties":
    case "unevaluatedProperties":
      return `${fieldOf(instancePath, String(params.additionalProperty ?? params.unevaluatedProperty))}: unknown field`;
    case "type":
      return `${fieldOf(instancePath)}: expected ${String(params.type).split(",").join(" or ")}, received ${jsonType(error.data)}`;
    case "enum":
      return `${fieldOf(instancePath)}: expected one of ${(params.allowedValues as unknown[])
        .map((option) => JSON.stringify(option))
        .join(", ")}`;
    case "const":
      return `${fieldOf(instancePath)}: expected ${JSON.stringify(params.allowedValue)}`;
    default:
      return `${fieldOf(instancePath)}: ${error.message ?? `fails ${keyword}`}`;
  }
}

function problemsOf(errors: readonly ErrorObject[]): Problems {
  const problems = [...new Set(errors.map(problemOf))];
  if (problems.length <= MAX_PROBLEMS) return problems;
  return [
    ...problems.slice(0, MAX_PROBLEMS),
    `…and ${problems.length - MAX_PROBLEMS} more problems`,
  ];
}
