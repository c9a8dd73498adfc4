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

/** `gen_ai.input.messages`: the transcript sent to the model. */
export function inputMessages(messages: readonly TracedMessage[]): string | undefined {
  return json(messages.map(chatMessage));
}

/** `gen_ai.output.messages`: the model's one choice. */
export function outputMessages(response: TracedModelResponse): string | undefined {
  const toolCalls = response.toolCalls ?? [];
  const message = chatMessage({ role: "assistant", content: response.text ?? "", toolCalls });
  message.finish_reason = response.finishReason ?? (toolCalls.length > 0 ? "tool_call" : "stop");
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
