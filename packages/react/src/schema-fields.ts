// Reads a request's JSON Schema into the fields a form shows. What a form can render well:
// strings, numbers, integers, enums, booleans, and objects one level deep. Anything else (an
// array, a deeper object, a oneOf of shapes) becomes a JSON field: a textarea whose text must
// parse, checked again by the server against the whole schema.

type Schema = Record<string, unknown>;

/** How a field is edited. */
export type FieldKind = "text" | "number" | "integer" | "enum" | "boolean" | "json";

/** One choice of an enum field. */
export interface EnumChoice {
  /** The value as the schema has it (a string, a number, `null`…). */
  value: unknown;
  /** What to show: the choice's `title` (from `oneOf: [{ const, title }]`) or its value as text. */
  label: string;
}

/** The limits a field's value must keep, from the schema. */
export interface FieldConstraints {
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
}

/** One field of the form, as read from the schema. */
export interface FieldSpec {
  /** Its path joined with dots: `env`, `who.age`; `""` for a whole-answer JSON field. */
  name: string;
  path: string[];
  kind: FieldKind;
  /** The schema's `title`, else its `description`, else the property name in words. */
  label: string;
  /** The `description`, when the label is the title (else `undefined`). */
  description: string | undefined;
  required: boolean;
  /** The schema's `default` (or the parent object's default for this key). */
  defaultValue: unknown;
  /** An enum's choices, in the schema's order. */
  choices: EnumChoice[];
  constraints: FieldConstraints;
  /** Whether the object a nested field sits in is required (always true at the top level). */
  inRequiredObject: boolean;
  /** The title of the object this field sits in, for a nested field (to group it). */
  group: string | undefined;
  /** The field's own schema. */
  schema: Schema;
}

const isObject = (value: unknown): value is Schema =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `replicaCount` / `replica_count` -> `Replica count`. */
export function words(name: string): string {
  const spaced = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .trim()
    .toLowerCase();
  return spaced === "" ? name : spaced[0]!.toUpperCase() + spaced.slice(1);
}

/** The schema's type, `null` dropped from a union (`["string", "null"]` -> `string`). */
function typeOf(schema: Schema): string | undefined {
  const { type } = schema;
  if (typeof type === "string") return type;
  if (Array.isArray(type)) {
    const kinds = type.filter((t) => t !== "null");
    return kinds.length === 1 && typeof kinds[0] === "string" ? kinds[0] : undefined;
  }
  return undefined;
}

/** An enum's choices: `enum`, `const`, or a `oneOf`/`anyOf` of `{ const, title }`. */
function choicesOf(schema: Schema): EnumChoice[] | undefined {
  if (Array.isArray(schema.enum)) {
    return schema.enum.map((value) => ({ value, label: labelOfValue(value) }));
  }
  if ("const" in schema) return [{ value: schema.const, label: labelOfValue(schema.const) }];
  const list = Array.isArray(schema.oneOf) ? schema.oneOf : schema.anyOf;
  if (Array.isArray(list) && list.length > 0 && list.every((e) => isObject(e) && "const" in e)) {
    return (list as Schema[]).map((entry) => ({
      value: entry.const,
      label: typeof entry.title === "string" ? entry.title : labelOfValue(entry.const),
    }));
  }
  return undefined;
}

const labelOfValue = (value: unknown) =>
  typeof value === "string" ? value : JSON.stringify(value);

const NUMBER_KEYS = [
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
] as const;

function constraintsOf(schema: Schema): FieldConstraints {
  const constraints: FieldConstraints = {};
  for (const key of NUMBER_KEYS) {
    const value = schema[key];
    if (typeof value === "number" && Number.isFinite(value)) constraints[key] = value;
  }
  if (typeof schema.pattern === "string") constraints.pattern = schema.pattern;
  if (typeof schema.format === "string") constraints.format = schema.format;
  return constraints;
}

function kindOf(schema: Schema): FieldKind {
  if (choicesOf(schema) !== undefined) return "enum";
  switch (typeOf(schema)) {
    case "string":
      return "text";
    case "number":
      return "number";
    case "integer":
      return "integer";
    case "boolean":
      return "boolean";
    default:
      return "json";
  }
}

function fieldOf(
  path: string[],
  schema: Schema,
  required: boolean,
  parentDefault: unknown,
  group: string | undefined,
  inRequiredObject = true,
): FieldSpec {
  const key = path[path.length - 1] ?? "";
  const title = typeof schema.title === "string" && schema.title !== "" ? schema.title : undefined;
  const about =
    typeof schema.description === "string" && schema.description !== ""
      ? schema.description
      : undefined;
  const kind = kindOf(schema);
  const fromParent = isObject(parentDefault) ? parentDefault[key] : undefined;
  return {
    name: path.join("."),
    path,
    kind,
    label: title ?? about ?? (key === "" ? "Answer (JSON)" : words(key)),
    description: title === undefined ? undefined : about,
    required,
    defaultValue: "default" in schema ? schema.default : fromParent,
    choices: choicesOf(schema) ?? [],
    constraints: constraintsOf(schema),
    inRequiredObject,
    group,
    schema,
  };
}

/** Whether `schema` is an object with properties a form can list. */
function hasProperties(schema: Schema): schema is Schema & { properties: Record<string, unknown> } {
  return (
    (typeOf(schema) === "object" || typeOf(schema) === undefined) && isObject(schema.properties)
  );
}

/**
 * The fields of a request's schema, in the schema's property order. A schema that is not an
 * object with properties (none, `{}`, an array) gives one JSON field for the whole answer.
 */
export function fieldsOf(schema: unknown): FieldSpec[] {
  if (!isObject(schema) || !hasProperties(schema)) {
    return [fieldOf([], isObject(schema) ? schema : {}, true, undefined, undefined)];
  }
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const fields: FieldSpec[] = [];
  for (const [key, child] of Object.entries(schema.properties)) {
    const spec = isObject(child) ? child : {};
    // One level of nesting is listed field by field; a deeper object is edited as JSON.
    if (hasProperties(spec) && choicesOf(spec) === undefined) {
      const inner = new Set(Array.isArray(spec.required) ? spec.required.map(String) : []);
      const group = typeof spec.title === "string" ? spec.title : words(key);
      for (const [innerKey, grandChild] of Object.entries(spec.properties)) {
        const innerSpec = isObject(grandChild) ? grandChild : {};
        // A grandchild object has no type of a form field of its own: it is a JSON field.
        const inRequired = required.has(key);
        fields.push(
          fieldOf([key, innerKey], innerSpec, inner.has(innerKey), spec.default, group, inRequired),
        );
      }
      continue;
    }
    fields.push(fieldOf([key], spec, required.has(key), undefined, undefined));
  }
  return fields;
}
