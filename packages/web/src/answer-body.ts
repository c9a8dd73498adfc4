// The body of `POST /requests/:id/answer`, and the answer's data checked against the JSON
// Schema the request carries (`request.data.schema`): a form cannot send what the tool did not
// ask for, and a bad answer lists every problem at once.
import type { Answer, AnswerReason, JSONSchema, Request } from "@toolnexus/core";
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { WebError } from "./errors.js";

const BODY_FIELDS = ["ok", "data", "reason"];
const REASONS: readonly AnswerReason[] = ["declined", "cancelled", "expired"];

/** `{ ok, data?, reason? }` with nothing else; the id comes from the path, never the body. */
export function answerOf(requestId: string, body: unknown): Answer {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new WebError(400, "bad_request", "the body must be a JSON object { ok, data?, reason? }");
  }
  const record = body as Record<string, unknown>;
  const issues: string[] = [];
  for (const key of Object.keys(record)) {
    if (!BODY_FIELDS.includes(key)) issues.push(`${key.slice(0, 40)}: unknown field`);
  }
  if (typeof record.ok !== "boolean") issues.push("ok: required, true or false");
  const { data, reason } = record;
  if (data !== undefined && (typeof data !== "object" || data === null || Array.isArray(data))) {
    issues.push("data: must be an object");
  }
  if (reason !== undefined) {
    if (record.ok === true) issues.push("reason: only for ok: false");
    else if (!REASONS.includes(reason as AnswerReason)) {
      issues.push(`reason: one of ${REASONS.join(", ")}`);
    }
  }
  if (issues.length > 0) {
    throw new WebError(400, "bad_request", "the answer is malformed", { issues });
  }
  const answer: Answer = { id: requestId, ok: record.ok as boolean };
  if (data !== undefined) answer.data = data as Record<string, unknown>;
  if (reason !== undefined) answer.reason = reason as AnswerReason;
  return answer;
}

/** The JSON Schema a request asks its answer's data to match, if it carries one. */
export function schemaOf(request: Request): JSONSchema | undefined {
  const schema = request.data?.schema;
  return typeof schema === "object" && schema !== null && !Array.isArray(schema)
    ? (schema as JSONSchema)
    : undefined;
}

const OPTIONS: Options = {
  allErrors: true, // list every problem, not just the first
  strict: false, // unknown keywords (annotations, vendor extensions) are ignored
  validateFormats: false, // `format` is an annotation, as in 2020-12's default vocabulary
  addUsedSchema: false, // a schema's $id never collides with another request's
  validateSchema: false,
};
let ajv2020: Ajv2020 | undefined;
let ajv07: Ajv | undefined;

// Requests of one tool share a schema: compile each distinct schema once, keeping a bounded few.
const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 200;
const MAX_ISSUES = 20;

/** Draft-04/06/07 schemas that say so get the draft-07 validator; everything else 2020-12. */
function validatorFor(dialect: unknown): Ajv | Ajv2020 {
  if (typeof dialect === "string" && /draft-0[4-7]/.test(dialect)) {
    ajv07 ??= new Ajv(OPTIONS);
    return ajv07;
  }
  ajv2020 ??= new Ajv2020(OPTIONS);
  return ajv2020;
}

function compile(schema: JSONSchema): ValidateFunction {
  const key = JSON.stringify(schema);
  const cached = compiled.get(key);
  if (cached !== undefined) return cached;
  const { $schema: dialect, ...body } = schema;
  const ajv = validatorFor(dialect);
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(body);
  } finally {
    ajv.removeSchema(body);
  }
  if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, validate);
  return validate;
}

/**
 * Checks an ok answer's data (`{}` when absent) against the request's schema; 400 listing each
 * problem. A declined answer carries no data to check. A schema that does not compile is the
 * tool's bug: it is thrown as is (a 500 for the host's log).
 */
export function checkAgainstSchema(request: Request, answer: Answer): void {
  const schema = schemaOf(request);
  if (schema === undefined || !answer.ok) return;
  const validate = compile(schema);
  if (validate(answer.data ?? {})) return;
  const issues = [...new Set((validate.errors ?? []).map(problemOf))];
  const listed =
    issues.length <= MAX_ISSUES
      ? issues
      : [...issues.slice(0, MAX_ISSUES), `…and ${issues.length - MAX_ISSUES} more problems`];
  throw new WebError(
    400,
    "invalid_answer",
    "the answer's data does not match the request's schema",
    {
      issues: listed,
    },
  );
}

/** `/who/age` + `x` -> `data.who.age.x`. */
function fieldOf(pointer: string, child?: string): string {
  const parts = pointer === "" ? [] : pointer.slice(1).split("/");
  if (child !== undefined) parts.push(child);
  return ["data", ...parts.map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))]
    .join(".")
    .slice(0, 200);
}

function problemOf(error: ErrorObject): string {
  const { keyword, params, instancePath } = error;
  switch (keyword) {
    case "required":
      return `${fieldOf(instancePath, String(params.missingProperty))}: required`;
    case "additionalProperties":
      return `${fieldOf(instancePath, String(params.additionalProperty))}: unknown field`;
    case "unevaluatedProperties":
      return `${fieldOf(instancePath, String(params.unevaluatedProperty))}: unknown field`;
    case "type":
      return `${fieldOf(instancePath)}: expected ${String(params.type).split(",").join(" or ")}`;
    case "enum":
      return `${fieldOf(instancePath)}: expected one of ${(params.allowedValues as unknown[])
        .map((option) => JSON.stringify(option))
        .join(", ")
        .slice(0, 200)}`;
    default:
      return `${fieldOf(instancePath)}: ${error.message ?? `fails ${keyword}`}`;
  }
}
