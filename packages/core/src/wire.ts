import { z } from "zod";
import { WireFormatError } from "./errors.js";

/** The kinds of human input a tool can ask for; any other string is allowed too. */
export type RequestKind = "authorization" | "approval" | "input" | "question" | (string & {});

/** Why an Answer is not ok. */
export type AnswerReason = "declined" | "cancelled" | "expired";

/**
 * A tool's question to a human: "log in here", "may I?", "which environment?". It is wire data
 * shared with every toolnexus port, so its JSON keys are exactly
 * `id, kind, prompt, url, data, expiresAt`, and absent optionals are left out.
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

const REASONS = ["declined", "cancelled", "expired"] as const;

// Other ports serialise absent optionals as null; accept that on input and drop it.
const absent = z.null().transform(() => undefined);
const plainObject = z.custom<Record<string, unknown>>(
  (value) => typeof value === "object" && value !== null && !Array.isArray(value),
);

/** Zod schema of a {@link Request}. Unknown keys are dropped; `null` optionals count as absent. */
export const RequestSchema = z.object({
  id: z.string({ error: '"id" must be a string' }).min(1, { error: '"id" must not be empty' }),
  kind: z
    .string({ error: '"kind" must be a string' })
    .min(1, { error: '"kind" must not be empty' }),
  prompt: z.string({ error: '"prompt" must be a string' }),
  url: z.union([z.string(), absent], { error: '"url" must be a string' }).optional(),
  data: z.union([plainObject, absent], { error: '"data" must be an object' }).optional(),
  expiresAt: z
    .union(
      [
        z.string().refine((value) => !Number.isNaN(Date.parse(value)), {
          error: '"expiresAt" must be an ISO 8601 date-time',
        }),
        absent,
      ],
      { error: '"expiresAt" must be an ISO 8601 date-time string' },
    )
    .optional(),
});

/** Zod schema of an {@link Answer}. Unknown keys are dropped; `null` optionals count as absent. */
export const AnswerSchema = z
  .object({
    id: z.string({ error: '"id" must be a string' }).min(1, { error: '"id" must not be empty' }),
    ok: z.boolean({ error: '"ok" must be a boolean' }),
    data: z.union([plainObject, absent], { error: '"data" must be an object' }).optional(),
    reason: z
      .union([z.enum(REASONS), absent], {
        error: '"reason" must be one of "declined", "cancelled", "expired"',
      })
      .optional(),
  })
  .refine((answer) => !(answer.ok && answer.reason !== undefined), {
    error: '"reason" is only allowed when "ok" is false',
    path: ["reason"],
  });

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function parseWith<T>(
  what: "Request" | "Answer",
  schema: z.ZodType<unknown>,
  input: unknown,
  build: (value: Record<string, unknown>) => T,
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
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new WireFormatError(what, [{ message: `expected an object, got ${describe(value)}` }]);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new WireFormatError(
      what,
      parsed.error.issues.map((issue) => {
        const field = issue.path.map(String).join(".");
        const missing =
          issue.path.length === 1 &&
          (value as Record<PropertyKey, unknown>)[issue.path[0]!] === undefined;
        const message = missing ? `"${field}" is required` : issue.message;
        return { field, message };
      }),
    );
  }
  return build(parsed.data as Record<string, unknown>);
}

// Rebuild in the fixed key order so JSON.stringify of a parsed value is canonical.
function buildRequest(v: Record<string, unknown>): Request {
  const request: Request = {
    id: v.id as string,
    kind: v.kind as string,
    prompt: v.prompt as string,
  };
  if (v.url !== undefined) request.url = v.url as string;
  if (v.data !== undefined) request.data = v.data as Record<string, unknown>;
  if (v.expiresAt !== undefined) request.expiresAt = v.expiresAt as string;
  return request;
}

function buildAnswer(v: Record<string, unknown>): Answer {
  const answer: Answer = { id: v.id as string, ok: v.ok as boolean };
  if (v.data !== undefined) answer.data = v.data as Record<string, unknown>;
  if (v.reason !== undefined) answer.reason = v.reason as AnswerReason;
  return answer;
}

/**
 * Validates a Request from the wire (a JSON string or an already-parsed value). Throws a
 * {@link WireFormatError} naming the bad field; unknown keys are dropped.
 */
export function parseRequest(json: unknown): Request {
  return parseWith("Request", RequestSchema, json, buildRequest);
}

/**
 * Validates an Answer from the wire (a JSON string or an already-parsed value) before you hand
 * it to `client.resume`. Throws a {@link WireFormatError} naming the bad field (`ok` not a
 * boolean, `id` missing, `reason` not one of the three values, `data` not an object); unknown
 * keys are dropped.
 */
export function parseAnswer(json: unknown): Answer {
  return parseWith("Answer", AnswerSchema, json, buildAnswer);
}
