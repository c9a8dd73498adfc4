// Opt-in content (`recordContent: true`): the transcript, tool arguments and results, as the
// GenAI conventions' JSON shapes (gen_ai.input.messages / gen_ai.output.messages), serialised to
// strings because span attributes cannot hold objects. Each is kept within the content cap and
// stays JSON: long strings inside are cut (saying so), and a transcript too long for the cap
// keeps its newest messages.
import { cut } from "./limits.js";
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

/** Tool call arguments' JSON text, written once however often a message is fitted. */
type ArgsTexts = Map<unknown, string | undefined>;

/**
 * A message in the conventions' shape, every string in it cut to `budget` characters. Tool call
 * arguments longer than that as JSON become their JSON text, cut; arguments JSON cannot write
 * are left out.
 */
function chatMessage(
  message: TracedMessage,
  budget: number,
  texts: ArgsTexts = new Map(),
): ChatMessage {
  const parts: Part[] = [];
  if (message.role === "tool") {
    const id = message.callId === undefined ? undefined : cut(message.callId, budget);
    parts.push({ type: "tool_call_response", id, response: cut(message.content, budget) });
    return { role: "tool", parts };
  }
  if (message.content !== "" || (message.toolCalls?.length ?? 0) === 0) {
    parts.push({ type: "text", content: cut(message.content, budget) });
  }
  for (const call of message.toolCalls ?? []) {
    parts.push({
      type: "tool_call",
      id: cut(call.id, budget),
      name: cut(call.name, budget),
      arguments: argumentsOf(call.args, budget, texts),
    });
  }
  return { role: cut(message.role, budget), parts };
}

function argumentsOf(args: unknown, budget: number, texts: ArgsTexts): unknown {
  if (!texts.has(args)) texts.set(args, json(args));
  const text = texts.get(args);
  if (text === undefined) return undefined;
  return text.length <= budget ? args : cut(text, budget);
}

/** Below this, strings are not shortened further to make one message fit. */
const MIN_BUDGET = 32;

/**
 * JSON text of at most `max` characters when shortening the strings inside makes it fit:
 * `render(budget)` writes the value with each string cut to `budget`. A value with too many
 * parts to fit even then comes back longer, and its attribute's cap cuts the text itself.
 */
function fit(render: (budget: number) => string | undefined, max: number): string | undefined {
  let budget = max;
  let text = render(budget);
  for (let tries = 0; tries < 8 && text !== undefined && text.length > max; tries++) {
    if (budget <= MIN_BUDGET) break;
    // The strings take most of the text: shrink them in proportion, with room for the rest.
    budget = Math.max(MIN_BUDGET, Math.floor((budget * max) / text.length) - MIN_BUDGET);
    text = render(budget);
  }
  return text;
}

/** `gen_ai.input.messages` and how many of the oldest messages were left out to fit it. */
export interface InputMessages {
  text: string;
  omitted: number;
}

/**
 * `gen_ai.input.messages`: the transcript sent to the model, without its system prompt (that is
 * `gen_ai.system_instructions`), as JSON of at most `max` characters: the newest messages that
 * fit, each string in them cut to `max`; when the newest alone is too long, it with its strings
 * shortened. Undefined when no message is left.
 */
export function inputMessages(
  messages: readonly TracedMessage[],
  max: number,
): InputMessages | undefined {
  const chat = messages.filter((message) => message.role !== "system");
  if (chat.length === 0) return undefined;
  const kept: string[] = [];
  const texts: ArgsTexts = new Map();
  let used = 2; // the brackets
  // From the newest back: only the messages looked at are written, not the whole transcript.
  for (let index = chat.length - 1; index >= 0; index--) {
    const text = json(chatMessage(chat[index]!, max, texts));
    if (text === undefined) break;
    const cost = text.length + (kept.length > 0 ? 1 : 0);
    if (used + cost > max) break;
    kept.push(text);
    used += cost;
  }
  if (kept.length === 0) {
    const newest = chat[chat.length - 1]!;
    const text = fit((budget) => json(chatMessage(newest, budget, texts)), max - 2);
    if (text === undefined) return undefined;
    kept.push(text);
  }
  return { text: `[${kept.reverse().join(",")}]`, omitted: chat.length - kept.length };
}

/** `gen_ai.system_instructions`: the system prompt as text parts; undefined when there is none. */
export function systemInstructions(
  messages: readonly TracedMessage[],
  max: number,
): string | undefined {
  const system = messages.filter((message) => message.role === "system");
  if (system.length === 0) return undefined;
  return fit(
    (budget) =>
      json(system.map((message) => ({ type: "text", content: cut(message.content, budget) }))),
    max,
  );
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

/** `gen_ai.output.messages`: the model's one choice, its strings cut to fit `max`. */
export function outputMessages(response: TracedModelResponse, max: number): string | undefined {
  const toolCalls = response.toolCalls ?? [];
  const assistant = { role: "assistant", content: response.text ?? "", toolCalls };
  const reason = finishReason(response);
  const texts: ArgsTexts = new Map();
  return fit((budget) => {
    const message = chatMessage(assistant, budget, texts);
    message.finish_reason = cut(reason, budget);
    return json([message]);
  }, max);
}

/** `gen_ai.output.messages` of a finished run: its final text, cut to fit `max`. */
export function finalText(text: string, max: number): string | undefined {
  return fit(
    (budget) =>
      json([
        {
          role: "assistant",
          parts: [{ type: "text", content: cut(text, budget) }],
          finish_reason: "stop",
        },
      ]),
    max,
  );
}

/** JSON text, or undefined for a value JSON cannot hold (a cycle, a BigInt). */
export function json(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}
