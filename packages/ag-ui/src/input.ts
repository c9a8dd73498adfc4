// The POST body, an AG-UI RunAgentInput, checked by hand for what this handler relies on (ids,
// the resume entries) and bounded (how many messages, tools, entries), so that a malformed or
// oversized body is refused with every problem listed before anything is looked up.
import type { RunAgentInput } from "@ag-ui/core";
import { checkId as checkStoreId, InvalidIdError } from "@toolnexus/core";
import { WebError } from "@toolnexus/web";

/** The longest thread, run or interrupt id accepted. */
export const MAX_AG_UI_ID_CHARS = 256;
/** The most messages a RunAgentInput may carry. */
export const MAX_INPUT_MESSAGES = 1_000;
/** The most tools, and the most context entries, a RunAgentInput may carry. */
export const MAX_INPUT_TOOLS = 200;
/** The most resume entries a RunAgentInput may carry. */
export const MAX_RESUME_ENTRIES = 100;

const KNOWN_FIELDS = [
  "threadId",
  "runId",
  "parentRunId",
  "protocolVersion",
  "state",
  "messages",
  "tools",
  "context",
  "forwardedProps",
  "resume",
];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether a store can keep `id` exactly (no unpaired UTF-16 surrogate, no NUL). */
function storable(id: string): boolean {
  try {
    checkStoreId(id, "id");
    return true;
  } catch (error) {
    if (error instanceof InvalidIdError) return false;
    throw error;
  }
}

function checkId(value: unknown, field: string, issues: string[], optional = false): void {
  if (value === undefined && optional) return;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  const bad = /[\u0000-\u001f\u007f]/;
  if (
    typeof value !== "string" ||
    value === "" ||
    value.length > MAX_AG_UI_ID_CHARS ||
    bad.test(value)
  ) {
    issues.push(
      `${field}: a string of 1 to ${MAX_AG_UI_ID_CHARS} characters without control characters`,
    );
  } else if (!storable(value)) {
    issues.push(`${field}: has an unpaired UTF-16 surrogate, which no store keeps`);
  }
}

function checkList(
  value: unknown,
  field: string,
  max: number,
  issues: string[],
  each: (item: Record<string, unknown>, at: string) => void,
): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) {
    issues.push(`${field}: must be an array`);
    return;
  }
  if (value.length > max) {
    issues.push(`${field}: at most ${max} items (got ${value.length})`);
    return;
  }
  value.forEach((item, i) => {
    if (!isRecord(item)) issues.push(`${field}[${i}]: must be an object`);
    else each(item, `${field}[${i}]`);
  });
}

/**
 * The body as a RunAgentInput (`tools` and `context` default to `[]`, as the AG-UI SDK reads
 * them); a 400 listing every problem otherwise. Unknown fields are refused, so a typo in a
 * client's body is said rather than ignored.
 */
export function checkRunAgentInput(body: unknown): RunAgentInput {
  if (!isRecord(body)) {
    throw new WebError(
      400,
      "bad_request",
      "the body must be a JSON object (an AG-UI RunAgentInput)",
    );
  }
  const issues: string[] = [];
  for (const key of Object.keys(body)) {
    if (!KNOWN_FIELDS.includes(key)) issues.push(`${key.slice(0, 40)}: unknown field`);
  }
  checkId(body.threadId, "threadId", issues);
  checkId(body.runId, "runId", issues);
  checkId(body.parentRunId, "parentRunId", issues, true);
  if (body.protocolVersion !== undefined && typeof body.protocolVersion !== "string") {
    issues.push("protocolVersion: must be a string");
  }
  if (body.messages === undefined) issues.push("messages: required (an array, maybe empty)");
  checkList(body.messages, "messages", MAX_INPUT_MESSAGES, issues, (message, at) => {
    checkId(message.id, `${at}.id`, issues);
    if (typeof message.role !== "string") issues.push(`${at}.role: must be a string`);
  });
  checkList(body.tools, "tools", MAX_INPUT_TOOLS, issues, (tool, at) => {
    if (typeof tool.name !== "string" || tool.name === "") {
      issues.push(`${at}.name: a non-empty string`);
    }
  });
  checkList(body.context, "context", MAX_INPUT_TOOLS, issues, (entry, at) => {
    if (typeof entry.value !== "string") issues.push(`${at}.value: must be a string`);
  });
  const seen = new Set<string>();
  checkList(body.resume, "resume", MAX_RESUME_ENTRIES, issues, (entry, at) => {
    checkId(entry.interruptId, `${at}.interruptId`, issues);
    if (typeof entry.interruptId === "string") {
      if (seen.has(entry.interruptId)) issues.push(`${at}.interruptId: answered twice`);
      seen.add(entry.interruptId);
    }
    if (entry.status !== "resolved" && entry.status !== "cancelled") {
      issues.push(`${at}.status: "resolved" or "cancelled"`);
    }
    if (entry.metadata !== undefined && !isRecord(entry.metadata)) {
      issues.push(`${at}.metadata: must be an object`);
    }
  });
  if (issues.length > 0) {
    throw new WebError(400, "bad_request", "the RunAgentInput is malformed", { issues });
  }
  const input = { ...body, tools: body.tools ?? [], context: body.context ?? [] };
  return input as unknown as RunAgentInput;
}

/**
 * The text of the input's last user message: its string content, or its text parts joined.
 * What most `start` functions hand to `client.run` as the prompt; `""` when there is none.
 */
export function promptOf(input: Pick<RunAgentInput, "messages">): string {
  for (let i = input.messages.length - 1; i >= 0; i--) {
    const message = input.messages[i];
    if (message?.role !== "user") continue;
    const { content } = message as { content?: unknown };
    if (typeof content === "string") return content;
    if (Array.isArray(content)) {
      return content
        .filter((part): part is { type: "text"; text: string } => {
          return isRecord(part) && part.type === "text" && typeof part.text === "string";
        })
        .map((part) => part.text)
        .join("");
    }
    return "";
  }
  return "";
}
