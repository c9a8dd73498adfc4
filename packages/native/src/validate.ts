import type { JSONSchema } from "@toolnexus/core";

// A deliberately small check for plain JSON Schema input: the top-level shape the model most
// often gets wrong (missing required keys, wrong primitive types, values outside an enum).
// Use a zod schema when you need full validation.

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function matchesType(value: unknown, type: string): boolean {
  const actual = jsonType(value);
  if (type === "number") return actual === "number" || actual === "integer";
  return actual === type;
}

/** Problems with `args` against the top level of `schema`, one string per bad field. */
export function checkJsonSchema(schema: JSONSchema, args: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const key of schema.required ?? []) {
    if (args[key] === undefined) problems.push(`${key}: required`);
  }
  const properties = schema.properties ?? {};
  for (const [key, value] of Object.entries(args)) {
    const property = properties[key];
    if (property === undefined) {
      if (schema.additionalProperties === false) problems.push(`${key}: unknown field`);
      continue;
    }
    if (value === undefined) continue;
    const types =
      property.type === undefined
        ? undefined
        : Array.isArray(property.type)
          ? property.type
          : [property.type];
    if (types !== undefined && !types.some((type) => matchesType(value, type))) {
      problems.push(`${key}: expected ${types.join(" or ")}, received ${jsonType(value)}`);
      continue;
    }
    if (property.enum !== undefined && !property.enum.some((option) => option === value)) {
      problems.push(
        `${key}: expected one of ${property.enum.map((o) => JSON.stringify(o)).join(", ")}`,
      );
    }
  }
  return problems;
}
