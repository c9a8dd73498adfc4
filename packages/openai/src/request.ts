import {
  imageParts,
  type Message,
  type ModelRequest,
  type ToolChoice,
  type ToolMessage,
  type ToolSpec,
  toolResultText,
} from "@toolnexus/core";
import type {
  ChatMessageParam,
  ChatRequestBody,
  ChatToolChoice,
  ChatToolParam,
  ChatUserContentPart,
} from "./wire.js";

/**
 * Maps the provider-neutral transcript to Chat Completions messages: `system`, `user`,
 * `assistant` (with `tool_calls` carrying the raw argument text the model sent) and
 * `{ role: "tool", tool_call_id, content }`. An assistant turn that only called tools has
 * `content: null`, as the API itself returns it. A tool result's resources are text after its
 * content; its images (tool messages take only text) follow the run of tool results as one user
 * message of `image_url` parts.
 */
export function toChatMessages(messages: readonly Message[]): ChatMessageParam[] {
  const out: ChatMessageParam[] = [];
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    out.push(toChatMessage(message));
    // Tool messages take only text: the images of a run of tool results follow it as one user
    // message (each introduced by the call it came from), before the next turn.
    const next = messages[i + 1];
    if (message.role === "tool" && next?.role !== "tool") {
      const images = toolImagesMessage(messages, i);
      if (images !== undefined) out.push(images);
    }
  }
  return out;
}

/** The user message carrying the images of the run of tool messages that ends at `last`. */
function toolImagesMessage(
  messages: readonly Message[],
  last: number,
): ChatMessageParam | undefined {
  let first = last;
  while (first > 0 && messages[first - 1]?.role === "tool") first--;
  const content: ChatUserContentPart[] = [];
  for (const message of messages.slice(first, last + 1) as ToolMessage[]) {
    const images = imageParts(message.parts);
    if (images.length === 0) continue;
    content.push({ type: "text", text: `Images returned by ${message.name} (${message.callId}):` });
    for (const image of images) {
      content.push({
        type: "image_url",
        image_url: { url: `data:${image.mimeType};base64,${image.data}` },
      });
    }
  }
  return content.length === 0 ? undefined : { role: "user", content };
}

function toChatMessage(message: Message): ChatMessageParam {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content };
    case "user":
      return { role: "user", content: message.content };
    case "assistant": {
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) return { role: "assistant", content: message.content };
      return {
        role: "assistant",
        content: message.content === "" ? null : message.content,
        tool_calls: calls.map((call) => ({
          id: call.id,
          type: "function",
          // The exact text the model sent; an empty string (some servers send none for a
          // call without arguments) is replayed as "{}", which every server accepts.
          function: {
            name: call.name,
            arguments: call.rawArgs.trim() === "" ? "{}" : call.rawArgs,
          },
        })),
      };
    }
    case "tool":
      return {
        role: "tool",
        tool_call_id: message.callId,
        content: toolResultText(message.content, message.parts, true),
      };
  }
}

/** Maps tool specs to Chat Completions function tools. */
export function toChatTools(tools: readonly ToolSpec[]): ChatToolParam[] {
  return tools.map((tool) => ({
    type: "function",
    function: {
      name: tool.name,
      description: tool.description,
      parameters: tool.inputSchema as Record<string, unknown>,
    },
  }));
}

/** A {@link ToolChoice} as Chat Completions' `tool_choice`. */
export function toChatToolChoice(choice: ToolChoice): ChatToolChoice {
  if (typeof choice === "string") return choice;
  return { type: "function", function: { name: choice.name } };
}

/**
 * The body key a request's `maxTokens` is sent as: `max_completion_tokens` for OpenAI itself (its
 * reasoning models reject `max_tokens`), `max_tokens` for the compatible servers that know only it.
 */
export type MaxTokensKey = "max_tokens" | "max_completion_tokens";

/** Keys `requestParams` cannot override. */
const OWNED = ["messages", "tools", "stream"] as const;

/**
 * The request body for one call. `requestParams` are merged in and win, except `messages`,
 * `tools` and `stream`, and except the request's own `toolChoice` and `maxTokens`, which win
 * over them. Without tools, `tools`, `tool_choice` and `parallel_tool_calls` are left out
 * entirely (servers reject them alone). A streamed call asks for usage in the last chunk
 * (`stream_options.include_usage`) unless `requestParams` says otherwise.
 */
export function chatRequestBody(
  model: string,
  request: ModelRequest,
  requestParams: Readonly<Record<string, unknown>>,
  stream: boolean,
  maxTokensKey: MaxTokensKey = "max_tokens",
): ChatRequestBody {
  const params: Record<string, unknown> = { ...requestParams };
  for (const key of OWNED) delete params[key];
  const hasTools = request.tools.length > 0;
  if (!hasTools) {
    delete params.tool_choice;
    delete params.parallel_tool_calls;
  }

  const messages = toChatMessages(request.messages);
  const tools = hasTools ? { tools: toChatTools(request.tools), tool_choice: "auto" as const } : {};
  const own = params.stream_options;
  const body: ChatRequestBody = stream
    ? {
        model,
        messages,
        ...tools,
        stream: true,
        stream_options: {
          include_usage: true,
          ...(typeof own === "object" && own !== null ? (own as Record<string, unknown>) : {}),
        },
      }
    : { model, messages, ...tools };
  delete params.stream_options;
  Object.assign(body, params);
  if (hasTools && request.toolChoice !== undefined) {
    body.tool_choice = toChatToolChoice(request.toolChoice);
  }
  if (request.maxTokens !== undefined && request.maxTokens > 0) {
    delete body[maxTokensKey === "max_tokens" ? "max_completion_tokens" : "max_tokens"];
    body[maxTokensKey] = request.maxTokens;
  }
  return body;
}
