import {
  type AssistantMessage,
  imageParts,
  type Message,
  type ModelRequest,
  type ToolChoice,
  type ToolMessage,
  type ToolSpec,
  toolResultText,
} from "@toolnexus/core";
import { asRecord } from "@toolnexus/provider-utils";
import type {
  AssistantBlockParam,
  ImageBlockParam,
  ImageMediaType,
  MessageParam,
  MessagesRequestBody,
  RedactedThinkingBlockParam,
  ThinkingBlockParam,
  ToolChoiceParam,
  ToolParam,
  ToolResultBlockParam,
  UserBlockParam,
} from "./wire.js";

/** The key of this adapter's data in `AssistantMessage.providerData`. */
export const PROVIDER_DATA_KEY = "anthropic";

/**
 * What this adapter keeps in `providerData.anthropic` of an assistant turn: the `thinking` and
 * `redacted_thinking` blocks of the reply, in order and exactly as the API sent them, which the
 * API requires back at the start of that assistant turn when extended thinking is used with tools.
 */
export interface AnthropicProviderData {
  blocks: (ThinkingBlockParam | RedactedThinkingBlockParam)[];
}

/**
 * The thinking blocks kept on an assistant message by this adapter (only its own
 * `providerData.anthropic`; any other provider's data is never read), each checked for shape so
 * a hand-edited checkpoint cannot send a malformed block.
 */
export function thinkingBlocksOf(
  message: AssistantMessage,
): (ThinkingBlockParam | RedactedThinkingBlockParam)[] {
  const own = asRecord(message.providerData?.[PROVIDER_DATA_KEY]);
  if (own === undefined || !Array.isArray(own.blocks)) return [];
  const blocks: (ThinkingBlockParam | RedactedThinkingBlockParam)[] = [];
  for (const item of own.blocks) {
    const block = asRecord(item);
    if (
      block?.type === "thinking" &&
      typeof block.thinking === "string" &&
      typeof block.signature === "string"
    ) {
      blocks.push({ type: "thinking", thinking: block.thinking, signature: block.signature });
    } else if (block?.type === "redacted_thinking" && typeof block.data === "string") {
      blocks.push({ type: "redacted_thinking", data: block.data });
    }
  }
  return blocks;
}

type Turn =
  | { role: "user"; blocks: UserBlockParam[] }
  | { role: "assistant"; blocks: AssistantBlockParam[] };

/**
 * Maps the provider-neutral transcript to the Messages API: system messages are hoisted into
 * one `system` string (joined by blank lines); assistant tool calls become `tool_use` blocks;
 * tool results become `tool_result` blocks (`tool_use_id`, `content`, `is_error`). Consecutive
 * messages of one role are merged into one turn, so the results of parallel calls travel in a
 * single `user` turn, with `tool_result` blocks ahead of any text as the API requires. The
 * thinking blocks an assistant turn keeps in `providerData.anthropic` open that turn, as the
 * API requires with extended thinking. Empty text is left out (the API rejects empty text
 * blocks); a turn with a single text block is sent as a plain string.
 */
export function toAnthropicMessages(messages: readonly Message[]): {
  system: string | undefined;
  messages: MessageParam[];
} {
  const system: string[] = [];
  const turns: Turn[] = [];

  const add = (turn: Turn) => {
    if (turn.blocks.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === "user" && turn.role === "user") last.blocks.push(...turn.blocks);
    else if (last?.role === "assistant" && turn.role === "assistant")
      last.blocks.push(...turn.blocks);
    else turns.push(turn);
  };

  for (const message of messages) {
    switch (message.role) {
      case "system":
        if (message.content !== "") system.push(message.content);
        break;
      case "user":
        add({ role: "user", blocks: textBlocks(message.content) });
        break;
      case "assistant":
        add({
          role: "assistant",
          blocks: [
            ...thinkingBlocksOf(message),
            ...textBlocks(message.content),
            ...(message.toolCalls ?? []).map(
              (call): AssistantBlockParam => ({
                type: "tool_use",
                id: call.id,
                name: call.name,
                // The API needs an object; arguments that were not one are sent as `{}`.
                input: call.argsError === undefined ? call.args : {},
              }),
            ),
          ],
        });
        break;
      case "tool":
        add({
          role: "user",
          blocks: [
            {
              type: "tool_result",
              tool_use_id: message.callId,
              content: toolResultContent(message),
              is_error: message.isError,
            },
          ],
        });
        break;
    }
  }

  return {
    system: system.length === 0 ? undefined : system.join("\n\n"),
    messages: turns.map(toParam),
  };
}

/** A tool result's content: its text (with resources), and its images as image blocks. */
function toolResultContent(message: ToolMessage): ToolResultBlockParam["content"] {
  const text = toolResultText(message.content, message.parts, true);
  const images = imageParts(message.parts);
  if (images.length === 0) return text;
  return [
    ...textBlocks(text),
    ...images.map(
      (image): ImageBlockParam => ({
        type: "image",
        // imageParts keeps only the types the API takes.
        source: { type: "base64", media_type: image.mimeType as ImageMediaType, data: image.data },
      }),
    ),
  ];
}

function textBlocks(text: string): { type: "text"; text: string }[] {
  return text === "" ? [] : [{ type: "text", text }];
}

function toParam(turn: Turn): MessageParam {
  const only = turn.blocks.length === 1 ? turn.blocks[0] : undefined;
  if (only?.type === "text") return { role: turn.role, content: only.text };
  if (turn.role === "assistant") {
    // Thinking first, also when two assistant messages were merged into one turn.
    const thinking = turn.blocks.filter(isThinking);
    const rest = turn.blocks.filter((block) => !isThinking(block));
    return { role: "assistant", content: [...thinking, ...rest] };
  }
  // Tool results first: the API wants them at the start of the turn after the tool calls.
  const results = turn.blocks.filter((block) => block.type === "tool_result");
  const rest = turn.blocks.filter((block) => block.type !== "tool_result");
  return { role: "user", content: [...results, ...rest] };
}

function isThinking(block: AssistantBlockParam): boolean {
  return block.type === "thinking" || block.type === "redacted_thinking";
}

/** A {@link ToolChoice} as the Messages API's `tool_choice` (`"required"` is `any`). */
export function toAnthropicToolChoice(choice: ToolChoice): ToolChoiceParam {
  if (typeof choice !== "string") return { type: "tool", name: choice.name };
  return { type: choice === "required" ? "any" : choice };
}

/** Maps tool specs to Messages API tools (`name`, `description`, `input_schema`). */
export function toAnthropicTools(tools: readonly ToolSpec[]): ToolParam[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: { ...tool.inputSchema, type: "object" },
  }));
}

/** Keys `requestParams` cannot override. */
const OWNED = ["messages", "tools", "stream"] as const;

/**
 * The request body for one call: `model`, `max_tokens`, the hoisted `system`, `messages` and,
 * when there are any, `tools`. `requestParams` are merged in and win, except `messages`,
 * `tools` and `stream`, and except the request's own `toolChoice` and `maxTokens`, which win
 * over them; without tools, a `tool_choice` is dropped.
 */
export function messagesRequestBody(
  model: string,
  maxTokens: number,
  request: ModelRequest,
  requestParams: Readonly<Record<string, unknown>>,
  stream: boolean,
): MessagesRequestBody {
  const params: Record<string, unknown> = { ...requestParams };
  for (const key of OWNED) delete params[key];
  const hasTools = request.tools.length > 0;
  if (!hasTools) delete params.tool_choice;

  const { system, messages } = toAnthropicMessages(request.messages);
  const body: MessagesRequestBody = {
    model,
    max_tokens: maxTokens,
    ...(system === undefined ? {} : { system }),
    messages,
    ...(hasTools ? { tools: toAnthropicTools(request.tools) } : {}),
    ...(stream ? { stream: true as const } : {}),
  };
  Object.assign(body, params);
  if (hasTools && request.toolChoice !== undefined) {
    body.tool_choice = toAnthropicToolChoice(request.toolChoice);
  }
  if (request.maxTokens !== undefined && request.maxTokens > 0) body.max_tokens = request.maxTokens;
  return body;
}
