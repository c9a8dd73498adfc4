// The small part of JSON Schema a Request's `data.schema` uses in this demo: an object of
// string, boolean, number and integer fields, with enums, defaults and required keys. The
// terminal builds its prompts from it, the browser its form, and the server checks answers with
// it before a resume (so a bad answer changes nothing).
import type { Request } from "@toolnexus/core";

export type FieldType = "string" | "boolean" | "number" | "integer";

export interface Field {
  name: string;
  type: FieldType;
  title: string;
  description?: string;
  choices?: readonly (string | number)[];
  default?: unknown;
  required: boolean;
}

export interface AnswerSchema {
  fields: Field[];
  additionalProperties: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The answer schema a Request carries in `data.schema`, or undefined when it has none. */
export function answerSchemaOf(request: Request): AnswerSchema | undefined {
  const schema = request.data?.schema;
  if (!isRecord(schema) || !isRecord(schema.properties)) return undefined;
  const required = Array.isArray(schema.required) ? schema.required.map(String) : [];
  const fields: Field[] = [];
  for (const [name, raw] of Object.entries(schema.properties)) {
    if (!isRecord(raw)) continue;
    const declared = raw.type;
    const type: FieldType =
      declared === "boolean" || declared === "number" || declared === "integer"
        ? declared
        : "string";
    const field: Field = {
      name,
      type,
      title: typeof raw.title === "string" ? raw.title : name,
      required: required.includes(name),
    };
    if (typeof raw.description === "string") field.description = raw.description;
    if (Array.isArray(raw.enum)) {
      field.choices = raw.enum.filter(
        (v): v is string | number => typeof v === "string" || typeof v === "number",
      );
    }
    if ("default" in raw) field.default = raw.default;
    fields.push(field);
  }
  return { fields, additionalProperties: schema.additionalProperties !== false };
}

/** Problems with `data` against the schema, each naming its field; empty when it fits. */
export function checkAnswerData(schema: AnswerSchema, data: unknown): string[] {
  if (data === undefined) data = {};
  if (!isRecord(data)) return ["the answer's data must be an object"];
  const problems: string[] = [];
  for (const field of schema.fields) {
    const value = data[field.name];
    if (value === undefined || value === null || value === "") {
      if (field.required) problems.push(`"${field.name}" is required`);
      continue;
    }
    const typeOk =
      field.type === "integer"
        ? Number.isInteger(value)
        : field.type === "number"
          ? typeof value === "number" && Number.isFinite(value)
          : typeof value === field.type;
    if (!typeOk) {
      problems.push(
        `"${field.name}" must be ${field.type === "integer" ? "an" : "a"} ${field.type}`,
      );
      continue;
    }
    if (field.choices !== undefined && !field.choices.includes(value as string | number)) {
      problems.push(
        `"${field.name}" must be one of ${field.choices.join(", ")} (got ${JSON.stringify(value)})`,
      );
    }
  }
  if (!schema.additionalProperties) {
    const known = new Set(schema.fields.map((f) => f.name));
    for (const key of Object.keys(data)) {
      if (!known.has(key)) problems.push(`"${key}" is not a field of this request`);
    }
  }
  return problems;
}

/** Turns text typed by a person (a flag value, a prompt answer) into the field's type. */
export function coerce(field: Field, text: string): unknown {
  const trimmed = text.trim();
  switch (field.type) {
    case "boolean": {
      if (/^(y|yes|true|1|on)$/i.test(trimmed)) return true;
      if (/^(n|no|false|0|off)$/i.test(trimmed)) return false;
      return trimmed;
    }
    case "number":
    case "integer": {
      const n = Number(trimmed);
      return trimmed === "" || Number.isNaN(n) ? trimmed : n;
    }
    default:
      return trimmed;
  }
}

/** The value a field gets when nobody chose one: its default, else its first choice. */
export function fallbackValue(field: Field): unknown {
  if (field.default !== undefined) return field.default;
  if (field.choices !== undefined && field.choices.length > 0) return field.choices[0];
  return undefined;
}
