// Opt-in content (`recordContent: true`): the transcript, tool arguments and results, as the
// GenAI conventions' JSON shapes (gen_ai.input.messages / gen_ai.output.messages), serialised to
// strings because span attributes cannot hold objects.
import type { TracedMessage, TracedModelResponse } from "./seam.js";

type Part =
  | { type: "text"; content: string }
  | { type: "tool_call"; id: string; name: string; arguments: unknown }
  | { type: "tool_call_response"; id: string | undefined; response: string };

interface ChatMessage {
  role: string;
  parts: Part[];
  finish_reason?: string;
}

function chatMessage(message: TracedMessage): ChatMessage {
  const parts: Part[] = [];
  if (message.role === "tool") {
    parts.push({ type: "tool_call_response", id: message.callId, response: message.content });
    return { role: "tool", parts };
  }
  if (message.content !== "" || (message.toolCalls?.length ?? 0) === 0) {
    parts.push({ type: "text", content: message.content });
  }
  for (const call of message.toolCalls ?? []) {
    parts.push({ type: "tool_call", id: call.id, name: call.name, arguments: call.args });
  }
  return { role: message.role, parts };
}

/**
 * `gen_ai.input.messages`: the transcript sent to the model, without its system prompt (that is
 * `gen_ai.system_instructions`); undefined when nothing is left.
 */
export function inputMessages(messages: readonly TracedMessage[]): string | undefined {
  const chat = messages.filter((message) => message.role !== "system").map(chatMessage);
  return chat.length === 0 ? undefined : json(chat);
}

/** `gen_ai.system_instructions`: the system prompt as text parts; undefined when there is none. */
export function systemInstructions(messages: readonly TracedMessage[]): string | undefined {
  const parts = messages
    .filter((message) => message.role === "system")
    .map((message) => ({ type: "text", content: message.content }));
  return parts.length === 0 ? undefined : json(parts);
}

// The conventions' finish reasons are singular (`tool_call`); providers and toolnexus's own
// normalized stop reason say `tool_calls`.
const FINISH_REASONS: Readonly<Record<string, string>> = {
  tool_calls: "tool_call",
  tool_use: "tool_call",
  function_call: "tool_call",
  max_tokens: "length",
};
const STANDARD_REASONS = new Set(["stop", "length", "content_filter", "tool_call", "error"]);

/**
 * The conventions' finish reason of a response: toolnexus's normalized stop reason when the
 * adapter gave one, else the provider's own, mapped onto `stop`, `length`, `content_filter`,
 * `tool_call` where they mean the same; a response with tool calls is `tool_call`.
 */
export function finishReason(response: TracedModelResponse): string {
  if ((response.toolCalls?.length ?? 0) > 0) return "tool_call";
  const given = response.stopReason ?? response.finishReason;
  if (typeof given !== "string" || given === "") return "stop";
  const key = given.toLowerCase();
  return FINISH_REASONS[key] ?? (STANDARD_REASONS.has(key) ? key : given);
}

/** `gen_ai.output.messages`: the model's one choice. */
export function outputMessages(response: TracedModelResponse): string | undefined {
  const toolCalls = response.toolCalls ?? [];
  const message = chatMessage({ role: "assistant", content: response.text ?? "", toolCalls });
  message.finish_reason = finishReason(response);
  return json([message]);
}

/** `gen_ai.output.messages` of a finished run: its final text. */
export function finalText(text: string): string | undefined {
  return json([
    { role: "assistant", parts: [{ type: "text", content: text }], finish_reason: "stop" },
  ]);
}

/** JSON text, or undefined for a value JSON cannot hold (a cycle, a BigInt). */
export function json(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}
