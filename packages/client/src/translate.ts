// `translate`: toolnexus as a wire-format translator (toolnexus SPEC §11). OpenAI-shaped messages
// and tools in, exactly one model call through any adapter, OpenAI-shaped text and tool calls
// out. No loop, no tool execution, no state.
import {
  type Message,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type StopReason,
  type ToolChoice,
  type ToolSpec,
  toolCall,
  type Usage,
} from "@toolnexus/core";

/** A content part of an OpenAI message; only `text` parts are kept (flattened to text). */
export interface TranslateContentPart {
  type: string;
  text?: string;
  [key: string]: unknown;
}

/** An OpenAI message content: a string, `null` (an assistant turn of tool calls), or parts. */
export type TranslateContent = string | null | readonly TranslateContentPart[];

/** An OpenAI `tool_calls` entry; `arguments` may also be an object, as some clients send it. */
export interface TranslateToolCallParam {
  id: string;
  type?: "function";
  function: { name: string; arguments?: string | Record<string, unknown> };
}

/** An OpenAI Chat Completions message, as a caller sends it. */
export type TranslateMessage =
  | { role: "system" | "developer"; content: TranslateContent; name?: string }
  | { role: "user"; content: TranslateContent; name?: string }
  | {
      role: "assistant";
      content?: TranslateContent;
      refusal?: string | null;
      tool_calls?: readonly TranslateToolCallParam[];
      name?: string;
    }
  | { role: "tool"; tool_call_id: string; content: TranslateContent };

/** An OpenAI function tool. */
export interface TranslateTool {
  type: "function";
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/** OpenAI's `tool_choice`. */
export type TranslateToolChoice =
  | "auto"
  | "none"
  | "required"
  | { type: "function"; function: { name: string } };

/** What {@link translate} sends: OpenAI `messages`, `tools` and `tool_choice`, verbatim. */
export interface TranslateRequest {
  /** The whole conversation the caller owns, tool calls and tool results included. */
  messages: readonly TranslateMessage[];
  /** OpenAI function tools, declared to the model. */
  tools?: readonly TranslateTool[];
  /**
   * Tools declared to the model and never run: a toolkit (anything with `tools()`, such as
   * `createToolkit` from `@toolnexus/toolkit`) or a list of tools or specs. Declared before
   * `tools`; a name already declared is not declared again.
   */
  toolkit?: { tools(): readonly ToolSpec[] } | readonly ToolSpec[];
  /** OpenAI `tool_choice`: `"auto"`, `"none"`, `"required"` or one function. */
  toolChoice?: TranslateToolChoice;
  /** Replaces every system and developer message of `messages`. */
  system?: string;
  /** The most tokens to generate; 0 or absent leaves the adapter's default. */
  maxTokens?: number;
  /** Aborts the call. */
  signal?: AbortSignal;
}

/** One tool call the model asked for, in OpenAI's terms: `arguments` is a JSON string. */
export interface TranslatedToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** What {@link translate} returns, the same for every provider. */
export interface TranslateResult {
  text: string;
  /** In the provider's order; none dropped. */
  toolCalls: TranslatedToolCall[];
  /**
   * `"tool_calls"` whenever a call is present, whatever the provider said; otherwise `"length"`
   * (cut at the token limit), `"content_filter"` (a refusal or the provider's filter) or `"stop"`.
   */
  finishReason: "stop" | "tool_calls" | "length" | "content_filter";
  /** The finer reason when the adapter reports one (`"refusal"` apart from `"content_filter"`). */
  stopReason?: StopReason;
  usage: Usage;
  /** The model's id, e.g. `"anthropic:claude-sonnet-4-5"`. */
  model: string;
}

/** Hooks that see the one model call, as the loop's `beforeModel` / `afterModel` do. */
export interface TranslateOptions {
  beforeModel?(
    request: ModelRequest,
    info: { turn: number },
  ): ModelRequest | undefined | Promise<ModelRequest | undefined>;
  afterModel?(
    response: ModelResponse,
    info: { turn: number },
  ): ModelResponse | undefined | Promise<ModelResponse | undefined>;
}

/**
 * One model call, no loop: OpenAI-style `messages` / `tools` / `tool_choice` in, the model's text
 * and tool calls out, through any adapter (`@toolnexus/openai`, `@toolnexus/anthropic`…). Nothing
 * is executed, ever: the caller owns the conversation and runs the tools, then calls again with
 * the results. The adapter does the provider's translation (for Anthropic: tool calls become
 * `tool_use` blocks with parsed arguments, consecutive tool results one user turn, system and
 * developer messages the `system` field) and its retries. `hooks` (a client's `beforeModel` /
 * `afterModel`) fire once each, with `turn: 1`.
 *
 * @example
 * const out = await translate(anthropic({ model: "claude-sonnet-4-5" }), {
 *   messages: [{ role: "user", content: "Weather in Paris?" }],
 *   tools: [{ type: "function", function: { name: "get_weather", parameters: schema } }],
 * });
 * // out.toolCalls: [{ id: "toolu_…", name: "get_weather", arguments: '{"city":"Paris"}' }]
 */
export async function translate(
  model: Model,
  request: TranslateRequest,
  hooks: TranslateOptions = {},
): Promise<TranslateResult> {
  if (typeof model?.generate !== "function") {
    throw new TypeError("translate: pass a model (e.g. openai({ model }) or anthropic({ model }))");
  }
  if (!Array.isArray(request?.messages)) {
    throw new TypeError("translate: request.messages must be an array of OpenAI messages");
  }
  let modelRequest: ModelRequest = {
    messages: toMessages(request.messages, request.system),
    tools: toSpecs(request.toolkit, request.tools),
  };
  if (request.toolChoice !== undefined) modelRequest.toolChoice = toToolChoice(request.toolChoice);
  if (request.maxTokens !== undefined && request.maxTokens > 0) {
    modelRequest.maxTokens = request.maxTokens;
  }
  const info = { turn: 1 };
  if (hooks.beforeModel !== undefined) {
    modelRequest = (await hooks.beforeModel(modelRequest, info)) ?? modelRequest;
  }
  let response = await model.generate(
    modelRequest,
    request.signal === undefined ? {} : { signal: request.signal },
  );
  if (hooks.afterModel !== undefined)
    response = (await hooks.afterModel(response, info)) ?? response;

  const result: TranslateResult = {
    text: response.text,
    toolCalls: response.toolCalls.map((call) => ({
      id: call.id,
      name: call.name,
      arguments: call.rawArgs.trim() === "" ? "{}" : call.rawArgs,
    })),
    finishReason: finishReasonOf(response),
    usage: response.usage ?? { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    model: model.id,
  };
  if (response.stopReason !== undefined) result.stopReason = response.stopReason;
  return result;
}

/** §11's mapping: any call is `tool_calls`; else length, content_filter (refusals too), stop. */
function finishReasonOf(response: ModelResponse): TranslateResult["finishReason"] {
  if (response.toolCalls.length > 0) return "tool_calls";
  const reason = response.stopReason ?? response.finishReason;
  switch (reason) {
    case "length":
    case "max_tokens":
      return "length";
    case "content_filter":
    case "refusal":
      return "content_filter";
    default:
      return "stop";
  }
}

function toMessages(messages: readonly TranslateMessage[], system: string | undefined): Message[] {
  const out: Message[] = [];
  if (system !== undefined && system !== "") out.push({ role: "system", content: system });
  // A tool result carries only the call id; the name comes from the call it answers.
  const names = new Map<string, string>();
  messages.forEach((message, index) => {
    switch (message?.role) {
      case "system":
      case "developer":
        if (system === undefined) out.push({ role: "system", content: flatten(message.content) });
        break;
      case "user":
        out.push({ role: "user", content: flatten(message.content) });
        break;
      case "assistant": {
        const content = flatten(message.content ?? null);
        const calls = (message.tool_calls ?? []).map((call) => {
          if (typeof call?.id !== "string" || typeof call.function?.name !== "string") {
            throw new TypeError(`translate: message ${index} has a malformed tool call`);
          }
          names.set(call.id, call.function.name);
          const args = call.function.arguments;
          const raw =
            typeof args === "string" ? args : args === undefined ? "" : JSON.stringify(args);
          return toolCall(call.id, call.function.name, raw);
        });
        out.push({
          role: "assistant",
          id: `msg_${index}`,
          content:
            content === "" && typeof message.refusal === "string" ? message.refusal : content,
          ...(calls.length > 0 ? { toolCalls: calls } : {}),
        });
        break;
      }
      case "tool":
        if (typeof message.tool_call_id !== "string") {
          throw new TypeError(`translate: message ${index} is a tool message without tool_call_id`);
        }
        out.push({
          role: "tool",
          callId: message.tool_call_id,
          name: names.get(message.tool_call_id) ?? "",
          content: flatten(message.content),
          isError: false,
        });
        break;
      default:
        throw new TypeError(
          `translate: message ${index} has role ${JSON.stringify((message as { role?: unknown })?.role)}; expected system, developer, user, assistant or tool`,
        );
    }
  });
  return out;
}

/** A content as text: a string as is, the text parts of an array joined by newlines. */
function flatten(content: TranslateContent | undefined): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.flatMap((part) => (typeof part?.text === "string" ? [part.text] : [])).join("\n");
}

function toSpecs(
  toolkit: TranslateRequest["toolkit"],
  tools: readonly TranslateTool[] | undefined,
): ToolSpec[] {
  const specs: ToolSpec[] = [];
  const seen = new Set<string>();
  const add = (spec: ToolSpec) => {
    if (seen.has(spec.name)) return;
    seen.add(spec.name);
    // Only the declaration: a Tool's execute is never kept, so it can never run.
    specs.push({ name: spec.name, description: spec.description, inputSchema: spec.inputSchema });
  };
  if (toolkit !== undefined) {
    const declared =
      "tools" in toolkit && typeof toolkit.tools === "function" ? toolkit.tools() : toolkit;
    for (const spec of declared as readonly ToolSpec[]) add(spec);
  }
  for (const [index, tool] of (tools ?? []).entries()) {
    const fn = tool?.function;
    if (typeof fn?.name !== "string" || fn.name === "") {
      throw new TypeError(`translate: tools[${index}] is not an OpenAI function tool`);
    }
    add({
      name: fn.name,
      description: fn.description ?? "",
      inputSchema: fn.parameters ?? { type: "object", properties: {} },
    });
  }
  return specs;
}

function toToolChoice(choice: TranslateToolChoice): ToolChoice {
  if (choice === "auto" || choice === "none" || choice === "required") return choice;
  if (typeof choice === "object" && typeof choice?.function?.name === "string") {
    return { name: choice.function.name };
  }
  throw new TypeError(
    `translate: toolChoice must be "auto", "none", "required" or { type: "function", function: { name } }, got ${JSON.stringify(choice)}`,
  );
}
