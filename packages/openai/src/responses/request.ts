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
  FunctionOutputContent,
  ReasoningItem,
  ResponsesFunctionTool,
  ResponsesInputItem,
  ResponsesRequestBody,
  ResponsesToolChoice,
} from "./wire.js";

/**
 * The key of this adapter's data in `AssistantMessage.providerData`: `"openai-responses"`, apart
 * from the Chat Completions adapter (which sends none back).
 */
export const PROVIDER_DATA_KEY = "openai-responses";

/**
 * What this adapter keeps in `providerData["openai-responses"]` of an assistant turn: the
 * `reasoning` items of the response, exactly as sent (id, summary, `encrypted_content` when
 * asked for with `include: ["reasoning.encrypted_content"]`). They go back ahead of the turn's
 * function calls, as the API requires of a reasoning model's calls.
 */
export interface ResponsesProviderData {
  reasoning: ReasoningItem[];
}

/** The reasoning items kept on an assistant message by this adapter (its own key only). */
export function reasoningItemsOf(message: AssistantMessage): ReasoningItem[] {
  const own = asRecord(message.providerData?.[PROVIDER_DATA_KEY]);
  if (own === undefined || !Array.isArray(own.reasoning)) return [];
  const items: ReasoningItem[] = [];
  for (const item of own.reasoning) {
    const record = asRecord(item);
    if (record?.type === "reasoning" && typeof record.id === "string") {
      items.push({
        ...record,
        summary: Array.isArray(record.summary) ? record.summary : [],
      } as ReasoningItem);
    }
  }
  return items;
}

/**
 * Maps the provider-neutral transcript to Responses `input` items and `instructions`: system
 * messages are hoisted into `instructions` (joined by blank lines); user and assistant text are
 * messages; an assistant turn's kept reasoning items come first, then its text, then one
 * `function_call` item per call (`call_id`, the raw argument text); a tool result is a
 * `function_call_output` item.
 */
export function toResponsesInput(messages: readonly Message[]): {
  instructions: string | undefined;
  input: ResponsesInputItem[];
} {
  const system: string[] = [];
  const input: ResponsesInputItem[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "system":
        if (message.content !== "") system.push(message.content);
        break;
      case "user":
        input.push({ role: "user", content: message.content });
        break;
      case "assistant":
        input.push(...reasoningItemsOf(message));
        if (message.content !== "") input.push({ role: "assistant", content: message.content });
        for (const call of message.toolCalls ?? []) {
          input.push({
            type: "function_call",
            call_id: call.id,
            name: call.name,
            arguments: call.rawArgs.trim() === "" ? "{}" : call.rawArgs,
          });
        }
        break;
      case "tool":
        input.push({
          type: "function_call_output",
          call_id: message.callId,
          output: functionOutput(message),
        });
        break;
    }
  }
  return { instructions: system.length === 0 ? undefined : system.join("\n\n"), input };
}

/** A tool result's output: its text (with resources), then its images as `input_image`s. */
function functionOutput(message: ToolMessage): string | FunctionOutputContent[] {
  const text = toolResultText(message.content, message.parts, true);
  const images = imageParts(message.parts);
  if (images.length === 0) return text;
  return [
    ...(text === "" ? [] : [{ type: "input_text" as const, text }]),
    ...images.map((image) => ({
      type: "input_image" as const,
      image_url: `data:${image.mimeType};base64,${image.data}`,
    })),
  ];
}

/** Tool specs as Responses function tools (`{ type, name, description, parameters }`). */
export function toResponsesTools(tools: readonly ToolSpec[]): ResponsesFunctionTool[] {
  return tools.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: tool.inputSchema as Record<string, unknown>,
    strict: false,
  }));
}

/** A {@link ToolChoice} as the Responses API's `tool_choice`. */
export function toResponsesToolChoice(choice: ToolChoice): ResponsesToolChoice {
  return typeof choice === "string" ? choice : { type: "function", name: choice.name };
}

/** Keys `requestParams` cannot override. */
const OWNED = ["input", "tools", "stream"] as const;

/**
 * The request body for one call. `requestParams` are merged in and win (e.g. `reasoning`,
 * `include`, `store`, `text`, `temperature`, `instructions`), except `input`, `tools` and
 * `stream`, and except the request's own `toolChoice` and `maxTokens` (`max_output_tokens`);
 * without tools, `tool_choice` and `parallel_tool_calls` are left out.
 */
export function responsesRequestBody(
  model: string,
  request: ModelRequest,
  requestParams: Readonly<Record<string, unknown>>,
  stream: boolean,
): ResponsesRequestBody {
  const params: Record<string, unknown> = { ...requestParams };
  for (const key of OWNED) delete params[key];
  const hasTools = request.tools.length > 0;
  if (!hasTools) {
    delete params.tool_choice;
    delete params.parallel_tool_calls;
  }
  const { instructions, input } = toResponsesInput(request.messages);
  const body: ResponsesRequestBody = {
    model,
    input,
    ...(instructions === undefined ? {} : { instructions }),
    ...(hasTools ? { tools: toResponsesTools(request.tools), tool_choice: "auto" as const } : {}),
    ...(stream ? { stream: true as const } : {}),
  };
  Object.assign(body, params);
  if (hasTools && request.toolChoice !== undefined) {
    body.tool_choice = toResponsesToolChoice(request.toolChoice);
  }
  if (request.maxTokens !== undefined && request.maxTokens > 0) {
    body.max_output_tokens = request.maxTokens;
  }
  return body;
}
