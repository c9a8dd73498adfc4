import type { StandardSchemaV1 } from "@standard-schema/spec";
import { WireFormatError } from "./errors.js";
import { copyWireData } from "./wire-data.js";

/** The kinds of human input a tool can ask for; any other string is allowed too. */
export type RequestKind = "authorization" | "approval" | "input" | "question" | (string & {});

/** Why an Answer is not ok. */
export type AnswerReason = "declined" | "cancelled" | "expired";

/**
 * A tool's question to a human: "log in here", "may I?", "which environment?". It is wire data
 * shared with every toolnexus port, so its JSON keys are exactly
 * `id, kind, prompt, url, data, expiresAt, route`, and absent optionals are left out.
 */
export interface Request {
  /** Correlation key; the Answer echoes it. Unique and unguessable when made by `pending()`. */
  id: string;
  kind: RequestKind;
  /** What to show the human. */
  prompt: string;
  /** Where to send the human (e.g. an OAuth page) for `kind: "authorization"`. */
  url?: string;
  /** Structured extras, e.g. `{ schema }` describing the input a form should collect. */
  data?: Record<string, unknown>;
  /** ISO 8601 time after which the request resolves as `{ ok: false, reason: "expired" }`. */
  expiresAt?: string;
  /**
   * Set on a question a sub-agent's tool asked, as it reaches a parent (`agentTool`): which
   * agent asks and through which agent tools. The asking tool's own `data` is left as it was.
   */
  route?: RequestRoute;
}

/** Where an escalated {@link Request} comes from: the agent that asks, and the way up. */
export interface RequestRoute {
  /** The agent whose tool asked. */
  agent: string;
  /** The agent tools the question came up through, the outermost first. */
  path: string[];
}

/**
 * The human's reply to a {@link Request}, echoing its `id`. JSON keys are exactly
 * `id, ok, data, reason`; `reason` is set only when `ok` is false.
 */
export interface Answer {
  id: string;
  ok: boolean;
  /** The payload for `kind: "input"` (e.g. `{ env: "staging" }`). */
  data?: Record<string, unknown>;
  reason?: AnswerReason;
}

const REASONS: readonly string[] = ["declined", "cancelled", "expired"];

/** One problem with a field of wire data; `path` goes below the field (`data.items[2]`). */
interface Issue {
  field: string;
  message: string;
  path?: string;
}

const REQUEST_FIELDS = ["id", "kind", "prompt", "url", "data", "expiresAt", "route"] as const;
const ANSWER_FIELDS = ["id", "ok", "data", "reason"] as const;

// Wire data is small and fixed, so it is checked by hand: core needs no schema library.
// Other ports serialise absent optionals as null; null and undefined both count as absent.

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A required non-empty string field. */
function requiredString(
  record: Record<string, unknown>,
  field: string,
  issues: Issue[],
  { nonEmpty = true } = {},
): void {
  const value = record[field];
  if (value === undefined) issues.push({ field, message: `"${field}" is required` });
  else if (typeof value !== "string")
    issues.push({ field, message: `"${field}" must be a string` });
  else if (nonEmpty && value.length === 0)
    issues.push({ field, message: `"${field}" must not be empty` });
}

/** An optional field: absent (undefined or null) or accepted by `accepts`. */
function optional(
  record: Record<string, unknown>,
  field: string,
  issues: Issue[],
  accepts: (value: unknown) => boolean,
  message: string,
): void {
  const value = record[field];
  if (value !== undefined && value !== null && !accepts(value)) issues.push({ field, message });
}

const isString = (value: unknown) => typeof value === "string";
const isDate = (value: unknown) => typeof value === "string" && !Number.isNaN(Date.parse(value));

function checkRequest(record: Record<string, unknown>): Issue[] {
  const issues: Issue[] = [];
  requiredString(record, "id", issues);
  requiredString(record, "kind", issues);
  requiredString(record, "prompt", issues, { nonEmpty: false });
  optional(record, "url", issues, isString, '"url" must be a string');
  optional(record, "data", issues, isPlainObject, '"data" must be an object');
  optional(
    record,
    "expiresAt",
    issues,
    isDate,
    typeof record.expiresAt === "string"
      ? '"expiresAt" must be an ISO 8601 date-time'
      : '"expiresAt" must be an ISO 8601 date-time string',
  );
  if (record.route != null && routeOf(record.route) === undefined) {
    issues.push({
      field: "route",
      message: '"route" must be { agent: string, path: string[] }',
    });
  }
  return issues;
}

/** A copy of a well-formed route (read once, plain strings only), else undefined. */
export function routeOf(value: unknown): RequestRoute | undefined {
  if (!isPlainObject(value)) return undefined;
  const { agent, path } = value as { agent?: unknown; path?: unknown };
  if (typeof agent !== "string" || !Array.isArray(path)) return undefined;
  const copied: string[] = [];
  for (let i = 0; i < path.length; i++) {
    const step: unknown = path[i];
    if (typeof step !== "string") return undefined;
    copied.push(step);
  }
  return { agent, path: copied };
}

function checkAnswer(record: Record<string, unknown>): Issue[] {
  const issues: Issue[] = [];
  requiredString(record, "id", issues);
  if (record.ok === undefined) issues.push({ field: "ok", message: '"ok" is required' });
  else if (typeof record.ok !== "boolean")
    issues.push({ field: "ok", message: '"ok" must be a boolean' });
  optional(record, "data", issues, isPlainObject, '"data" must be an object');
  optional(
    record,
    "reason",
    issues,
    (value) => REASONS.includes(value as string),
    '"reason" must be one of "declined", "cancelled", "expired"',
  );
  if (record.ok === true && REASONS.includes(record.reason as string)) {
    issues.push({ field: "reason", message: '"reason" is only allowed when "ok" is false' });
  }
  return issues;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/**
 * Reads each known field once into a plain record (unknown keys are never read), and copies
 * `data` as plain JSON: a getter cannot change a value after it was checked, and data that is
 * not JSON (a cycle, a BigInt, a function, a throwing getter, too deep) is an issue.
 */
function snapshot(
  value: object,
  fields: readonly string[],
): { record: Record<string, unknown> } | { issues: Issue[] } {
  const record: Record<string, unknown> = {};
  for (const field of fields) {
    let item: unknown;
    try {
      item = (value as Record<string, unknown>)[field];
    } catch (thrown) {
      const why = thrown instanceof Error ? thrown.message : String(thrown);
      return {
        issues: [{ field, message: `"${field}" could not be read (${why.slice(0, 40)})` }],
      };
    }
    if (field === "data" && isPlainObject(item)) {
      const copied = copyWireData(item, "data");
      if ("issue" in copied) {
        const { path, message } = copied.issue;
        return { issues: [{ field, path, message: `"${path}" ${message}` }] };
      }
      item = copied.value;
    }
    record[field] = item;
  }
  return { record };
}

/** Checks an already-parsed value; never throws. */
function check<T>(
  value: unknown,
  fields: readonly string[],
  checkFields: (record: Record<string, unknown>) => Issue[],
  build: (record: Record<string, unknown>) => T,
): { value: T } | { issues: Issue[] } {
  try {
    if (!isPlainObject(value)) {
      return { issues: [{ field: "", message: `expected an object, got ${describe(value)}` }] };
    }
    const read = snapshot(value, fields);
    if ("issues" in read) return read;
    const issues = checkFields(read.record);
    return issues.length === 0 ? { value: build(read.record) } : { issues };
  } catch {
    // A proxy whose traps throw: refused like any other unreadable value.
    return { issues: [{ field: "", message: "the value could not be read" }] };
  }
}

function wireFormatError(what: "Request" | "Answer", issues: readonly Issue[]): WireFormatError {
  return new WireFormatError(
    what,
    issues.map(({ field, message, path }) =>
      field === ""
        ? { message }
        : path === undefined
          ? { field, message }
          : { field, message, path },
    ),
  );
}

function parseWith<T>(
  what: "Request" | "Answer",
  input: unknown,
  fields: readonly string[],
  checkFields: (record: Record<string, unknown>) => Issue[],
  build: (record: Record<string, unknown>) => T,
): T {
  let value = input;
  if (typeof input === "string") {
    try {
      value = JSON.parse(input);
    } catch (cause) {
      throw new WireFormatError(what, [
        { message: `not valid JSON (${(cause as Error).message})` },
      ]);
    }
  }
  const checked = check(value, fields, checkFields, build);
  if ("issues" in checked) throw wireFormatError(what, checked.issues);
  return checked.value;
}

// Rebuild in the fixed key order so JSON.stringify of a parsed value is canonical.
function buildRequest(v: Record<string, unknown>): Request {
  const request: Request = {
    id: v.id as string,
    kind: v.kind as string,
    prompt: v.prompt as string,
  };
  if (v.url != null) request.url = v.url as string;
  if (v.data != null) request.data = v.data as Record<string, unknown>;
  if (v.expiresAt != null) request.expiresAt = v.expiresAt as string;
  const route = v.route == null ? undefined : routeOf(v.route);
  if (route !== undefined) request.route = route;
  return request;
}

function buildAnswer(v: Record<string, unknown>): Answer {
  const answer: Answer = { id: v.id as string, ok: v.ok as boolean };
  if (v.data != null) answer.data = v.data as Record<string, unknown>;
  if (v.reason != null) answer.reason = v.reason as AnswerReason;
  return answer;
}

/**
 * A validator of one kind of wire data. It is a Standard Schema (`~standard`), so any library
 * that accepts one (a router's body validator, a form library) can use it directly, and it has
 * zod-style `parse` and `safeParse`. It checks an already-parsed value; `parseRequest` and
 * `parseAnswer` also accept JSON text.
 */
export interface WireSchema<T> extends StandardSchemaV1<T, T> {
  /** The value with keys in the fixed order and absent optionals left out; throws a {@link WireFormatError}. */
  parse(value: unknown): T;
  /** Like `parse`, without throwing. */
  safeParse(
    value: unknown,
  ): { success: true; data: T } | { success: false; error: WireFormatError };
}

function wireSchema<T>(
  what: "Request" | "Answer",
  fields: readonly string[],
  checkFields: (record: Record<string, unknown>) => Issue[],
  build: (record: Record<string, unknown>) => T,
): WireSchema<T> {
  const fromValue = (value: unknown) => check(value, fields, checkFields, build);
  const failure = (issues: readonly Issue[]) => wireFormatError(what, issues);
  return {
    "~standard": {
      version: 1,
      vendor: "toolnexus",
      validate(value) {
        const checked = fromValue(value);
        if ("value" in checked) return { value: checked.value };
        return {
          issues: checked.issues.map(({ field, message }) =>
            field === "" ? { message } : { message, path: [field] },
          ),
        };
      },
    },
    parse(value) {
      const checked = fromValue(value);
      if ("issues" in checked) throw failure(checked.issues);
      return checked.value;
    },
    safeParse(value) {
      const checked = fromValue(value);
      return "issues" in checked
        ? { success: false, error: failure(checked.issues) }
        : { success: true, data: checked.value };
    },
  };
}

/** Validator of a {@link Request}. Unknown keys are dropped; `null` optionals count as absent. */
export const RequestSchema: WireSchema<Request> = wireSchema(
  "Request",
  REQUEST_FIELDS,
  checkRequest,
  buildRequest,
);

/** Validator of an {@link Answer}. Unknown keys are dropped; `null` optionals count as absent. */
export const AnswerSchema: WireSchema<Answer> = wireSchema(
  "Answer",
  ANSWER_FIELDS,
  checkAnswer,
  buildAnswer,
);

/**
 * Validates a Request from the wire (a JSON string or an already-parsed value). Throws a
 * {@link WireFormatError} naming the bad field; unknown keys are dropped.
 */
export function parseRequest(json: unknown): Request {
  return parseWith("Request", json, REQUEST_FIELDS, checkRequest, buildRequest);
}

/**
 * Validates an Answer from the wire (a JSON string or an already-parsed value) before you hand
 * it to `client.resume`. Throws a {@link WireFormatError} naming the bad field (`ok` not a
 * boolean, `id` missing, `reason` not one of the three values, `data` not an object); unknown
 * keys are dropped.
 */
export function parseAnswer(json: unknown): Answer {
  return parseWith("Answer", json, ANSWER_FIELDS, checkAnswer, buildAnswer);
}
