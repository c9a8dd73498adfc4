// A toolnexus question (a Request) as an MCP elicitation, and the client's reply as the Answer:
// the inverse of @toolnexus/mcp's mapping. Authorization with a link → URL mode (a secret is
// never typed into a form); approval → a form with nothing to fill in (accept or decline);
// input, question and any other kind → a form whose schema is the request's `data.schema`.
import type { Answer, Request } from "@toolnexus/core";

/** An `elicitation/create` request's params, form or URL mode. */
export type ElicitationParams =
  | { mode: "form"; message: string; requestedSchema: FormSchema }
  | { mode: "url"; message: string; url: string };

/** The restricted schema of an elicitation form: flat primitive properties. */
export interface FormSchema {
  type: "object";
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
  [keyword: string]: unknown;
}

/** The field a form asks for when the request names no schema of its own. */
export const ANSWER_FIELD = "answer";

const PRIMITIVES = new Set(["string", "number", "integer", "boolean"]);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `data.schema` when it is a flat object schema an MCP client can render, else undefined. */
function formSchemaOf(schema: unknown): FormSchema | undefined {
  if (!isObject(schema) || schema.type !== "object" || !isObject(schema.properties)) {
    return undefined;
  }
  for (const property of Object.values(schema.properties)) {
    if (!isObject(property)) return undefined;
    const type = property.type;
    const items = isObject(property.items) ? property.items : undefined;
    const primitive =
      (typeof type === "string" && PRIMITIVES.has(type)) ||
      // Multi-select enums are arrays of strings (SEP-1330).
      (type === "array" &&
        items !== undefined &&
        (items.enum !== undefined || items.anyOf !== undefined));
    if (!primitive && property.enum === undefined && property.oneOf === undefined) return undefined;
  }
  return schema as FormSchema;
}

/** True when the request is answered at a link, out of band (URL-mode elicitation). */
export function isUrlRequest(request: Request): boolean {
  return request.kind === "authorization" && typeof request.url === "string" && request.url !== "";
}

/** The elicitation that asks the client's person what `request` asks. */
export function toElicitation(request: Request): ElicitationParams {
  const message = request.prompt;
  if (isUrlRequest(request)) return { mode: "url", message, url: request.url as string };
  const own = formSchemaOf(request.data?.schema);
  if (own !== undefined) return { mode: "form", message, requestedSchema: own };
  if (request.kind === "approval" || request.kind === "authorization") {
    // Nothing to type: accepting approves (or says the out-of-band step is done).
    return { mode: "form", message, requestedSchema: { type: "object", properties: {} } };
  }
  return {
    mode: "form",
    message,
    requestedSchema: {
      type: "object",
      properties: { [ANSWER_FIELD]: { type: "string", description: message } },
      required: [ANSWER_FIELD],
    },
  };
}

/** The client's reply to one elicitation, as the SDK's `inputResponse` view gives it. */
export type ElicitReply =
  | { kind: "elicit"; action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> }
  | { kind: string };

/**
 * The Answer a reply gives `request`: accept → ok (the form's content as `data`), decline →
 * declined, cancel → cancelled; `undefined` when the reply is missing or not an elicitation's.
 */
export function toAnswer(request: Request, reply: ElicitReply): Answer | undefined {
  if (reply.kind !== "elicit" || !("action" in reply)) return undefined;
  if (reply.action === "decline") return { id: request.id, ok: false, reason: "declined" };
  if (reply.action !== "accept") return { id: request.id, ok: false, reason: "cancelled" };
  const answer: Answer = { id: request.id, ok: true };
  if (!isUrlRequest(request) && isObject(reply.content)) answer.data = { ...reply.content };
  return answer;
}

/** Which elicitation modes a client declared (a bare `elicitation: {}` means form, as in 2025). */
export function elicitationModes(capabilities: unknown): { form: boolean; url: boolean } {
  const elicitation = isObject(capabilities) ? capabilities.elicitation : undefined;
  if (!isObject(elicitation)) return { form: false, url: false };
  const url = elicitation.url !== undefined;
  const form = elicitation.form !== undefined || !url;
  return { form, url };
}

/** What a client that cannot ask its person is told the tool needed, or undefined if it can ask. */
export function unaskable(request: Request, capabilities: unknown): string | undefined {
  const modes = elicitationModes(capabilities);
  const mode = isUrlRequest(request) ? "url" : "form";
  if (modes[mode]) return undefined;
  const link = isUrlRequest(request) ? ` (${request.url})` : "";
  const lacks = modes.form || modes.url ? `${mode}-mode elicitation` : "elicitation";
  return `needs ${request.kind}: ${request.prompt}${link}. This MCP client cannot ask its user (it does not declare the ${lacks} capability), so the call did not run to the end.`;
}
