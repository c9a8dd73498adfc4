// The body `DefaultChatTransport` posts: `{ id, messages, trigger, messageId, ...your body }`.
// Checked for what the handler reads (the chat id, the last message, its approvals); the rest
// of each message is passed to your `start` untouched.
import { checkId, InvalidIdError } from "@toolnexus/core";
import { WebError } from "@toolnexus/web";

/** A UI message as the browser sent it (an `ai` `UIMessage`; only the fields read are typed). */
export interface ChatMessage {
  id: string;
  role: "system" | "user" | "assistant";
  parts: ChatMessagePart[];
  metadata?: unknown;
}

/** One part of a {@link ChatMessage}: `{ type: "text", text }`, a tool part, a data part… */
export interface ChatMessagePart {
  type: string;
  [key: string]: unknown;
}

/** The checked body of `POST {api}`. */
export interface ChatRequestBody {
  chatId: string;
  messages: ChatMessage[];
  trigger: "submit-message" | "regenerate-message";
  /** The body as sent, for fields your transport adds (`body` of `DefaultChatTransport`). */
  raw: Record<string, unknown>;
}

/** An approval the browser answered (`addToolApprovalResponse`): a tool part `approval-responded`. */
export interface ApprovalResponse {
  approvalId: string;
  toolCallId: string;
  approved: boolean;
  reason?: string;
}

const ROLES = ["system", "user", "assistant"];
export const MAX_CHAT_ID_CHARS = 256;
/** The longest reason kept with a declined (or approved) tool approval. */
export const MAX_APPROVAL_REASON_CHARS = 1_000;
/** The most different tool approvals one message may answer (a halt asks far fewer). */
export const MAX_APPROVAL_RESPONSES = 100;

const bad = (message: string, issues?: string[]) =>
  new WebError(400, "bad_request", message, issues === undefined ? {} : { issues });

/** Checks the body; 400 listing what is wrong. */
export function chatRequestOf(body: unknown, maxMessages: number): ChatRequestBody {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw bad("the body must be a JSON object { id, messages, trigger }");
  }
  const raw = body as Record<string, unknown>;
  const issues: string[] = [];
  const { id, messages, trigger } = raw;
  if (
    typeof id !== "string" ||
    id === "" ||
    id.length > MAX_CHAT_ID_CHARS ||
    // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
    /[\u0000-\u001f\u007f]/.test(id)
  ) {
    issues.push(`id: the chat's id, 1 to ${MAX_CHAT_ID_CHARS} characters`);
  }
  if (trigger !== "submit-message" && trigger !== "regenerate-message") {
    issues.push('trigger: "submit-message" or "regenerate-message"');
  }
  if (!Array.isArray(messages) || messages.length === 0 || messages.length > maxMessages) {
    issues.push(`messages: an array of 1 to ${maxMessages} messages`);
  } else {
    messages.forEach((message, i) => {
      const m = message as Partial<ChatMessage> | null;
      if (
        typeof m !== "object" ||
        m === null ||
        typeof m.id !== "string" ||
        !ROLES.includes(m.role as string) ||
        !Array.isArray(m.parts) ||
        m.parts.some((p) => typeof p !== "object" || p === null || typeof p.type !== "string")
      ) {
        if (issues.length < 20) issues.push(`messages[${i}]: { id, role, parts: [{ type }] }`);
      }
    });
  }
  if (issues.length > 0) throw bad("the chat request is malformed", issues);
  return {
    chatId: id as string,
    messages: messages as ChatMessage[],
    trigger: trigger as ChatRequestBody["trigger"],
    raw,
  };
}

/** The text of a message: its text parts, joined by blank lines. */
export function textOf(message: ChatMessage): string {
  return message.parts
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text as string)
    .join("\n\n");
}

/** Why `id` is no approval id a store could hold, or undefined when it could be one. */
function idProblem(id: string): string | undefined {
  if (id === "") return "approval.id: empty";
  try {
    checkId(id, "approval.id");
    return undefined;
  } catch (error) {
    if (!(error instanceof InvalidIdError)) throw error;
    return error.message; // names the problem and where, never the id itself
  }
}

/**
 * The tool approvals the person answered in `message` (tool parts in state
 * `approval-responded`, from `addToolApprovalResponse`), each approval once: parts repeating
 * one with the same response count once. A 400 for a malformed part, an approval id no store
 * could hold (empty, over `MAX_STORE_ID_CHARS`, a NUL, an unpaired surrogate), one approval
 * answered two ways, or more than {@link MAX_APPROVAL_RESPONSES} different approvals.
 */
export function approvalResponsesOf(message: ChatMessage): ApprovalResponse[] {
  const responses = new Map<string, ApprovalResponse>();
  for (const part of message.parts) {
    const isTool = part.type.startsWith("tool-") || part.type === "dynamic-tool";
    if (!isTool || part.state !== "approval-responded") continue;
    const approval = part.approval as
      | { id?: unknown; approved?: unknown; reason?: unknown }
      | undefined;
    if (
      typeof approval?.id !== "string" ||
      typeof approval.approved !== "boolean" ||
      typeof part.toolCallId !== "string"
    ) {
      throw bad("a tool part approval-responded needs approval { id, approved } and toolCallId");
    }
    if (approval.reason !== undefined && typeof approval.reason !== "string") {
      throw bad("approval.reason: a string");
    }
    const problem = idProblem(approval.id);
    if (problem !== undefined)
      throw bad("a tool approval's id is not one a store can keep", [problem]);
    const response: ApprovalResponse = {
      approvalId: approval.id,
      toolCallId: part.toolCallId,
      approved: approval.approved,
    };
    const reason = approval.reason as string | undefined;
    if (reason !== undefined && reason !== "") {
      response.reason = reason.slice(0, MAX_APPROVAL_REASON_CHARS);
    }
    const seen = responses.get(response.approvalId);
    if (seen !== undefined) {
      if (
        seen.approved !== response.approved ||
        seen.reason !== response.reason ||
        seen.toolCallId !== response.toolCallId
      ) {
        throw bad("one tool approval is answered twice, differently");
      }
      continue;
    }
    if (responses.size === MAX_APPROVAL_RESPONSES) {
      throw bad(`a message answers at most ${MAX_APPROVAL_RESPONSES} tool approvals`);
    }
    responses.set(response.approvalId, response);
  }
  return [...responses.values()];
}
