import type { Message, ModelRequest, ToolSpec } from "@toolnexus/core";
import type { ChatMessageParam, ChatRequestBody, ChatToolParam } from "./wire.js";

/**
 * Maps the provider-neutral transcript to Chat Completions messages: `system`, `user`,
 * `assistant` (with `tool_calls` carrying the raw argument text the model sent) and
 * `{ role: "tool", tool_call_id, content }`. An assistant turn that only called tools has
 * `content: null`, as the API itself returns it.
 */
export function toChatMessages(messages: readonly Message[]): ChatMessageParam[] {
  return messages.map(toChatMessage);
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
      return { role: "tool", tool_call_id: message.callId, content: message.content };
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

/** Keys `requestParams` cannot override. */
const OWNED = ["messages", "tools", "stream"] as const;

/**
 * The request body for one call. `requestParams` are merged in and win, except `messages`,
 * `tools` and `stream`. Without tools, `tools`, `tool_choice` and `parallel_tool_calls` are
 * left out entirely (servers reject them alone). A streamed call asks for usage in the last
 * chunk (`stream_options.include_usage`) unless `requestParams` says otherwise.
 */
export function chatRequestBody(
  model: string,
  request: ModelRequest,
  requestParams: Readonly<Record<string, unknown>>,
  stream: boolean,
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
  return Object.assign(body, params);
}
