import type { Message, ProviderData, ToolCall, Usage } from "./messages.js";
import type { ToolSpec } from "./tool.js";

/** What the loop asks a model: the transcript so far and the tools it may call. */
export interface ModelRequest {
  messages: readonly Message[];
  tools: readonly ToolSpec[];
  /**
   * Whether and which tool the model must call on this request (see {@link ToolChoice}); the
   * adapter's own default (the model decides) when absent. Ignored without tools.
   */
  toolChoice?: ToolChoice;
  /** The most tokens the model may generate on this request; the adapter's default when absent. */
  maxTokens?: number;
}

/**
 * Which tool the model must call, in every provider's terms: `"auto"` (the model decides),
 * `"none"` (no tool), `"required"` (at least one tool, any), or `{ name }` (that tool).
 */
export type ToolChoice = "auto" | "none" | "required" | { name: string };

/** What a model answers: text, tool calls, or both. */
export interface ModelResponse {
  /** The provider's response id; becomes the assistant message's id. */
  id?: string;
  text: string;
  /**
   * The reasoning the provider shows (its thinking or reasoning summary text, joined), when it
   * gives any. Read-only: it is not sent back; what a provider needs next turn (signatures,
   * encrypted reasoning) travels in `providerData`.
   */
  reasoning?: string;
  toolCalls: ToolCall[];
  usage?: Usage;
  /** The provider's stop reason as it sent it, e.g. `"stop"`, `"tool_calls"`, `"end_turn"`. */
  finishReason?: string;
  /** Why the model stopped, the same for every provider (see {@link StopReason}). */
  stopReason?: StopReason;
  /** Copied onto the assistant message, for the adapter to send back next turn. */
  providerData?: ProviderData;
}

/**
 * Why a model stopped, normalized across providers: `stop` (a finished answer), `tool_calls`
 * (any tool call, whatever the provider said), `length` (cut by the token limit), `content_filter`
 * (blocked by the provider's filter), `refusal` (the model declined to answer).
 */
export type StopReason = "stop" | "tool_calls" | "length" | "content_filter" | "refusal";

/** Options for one model call. */
export interface ModelCallOptions {
  /** Aborts the request; adapters reject promptly and never retry an abort. */
  signal?: AbortSignal;
}

/** One piece of a streamed model response. The stream always ends with `finish`. */
export type ModelStreamPart =
  | { type: "text"; delta: string }
  /** A piece of the reasoning the provider shows ({@link ModelResponse.reasoning}). */
  | { type: "reasoning"; delta: string }
  | { type: "tool_call"; call: ToolCall }
  | { type: "finish"; response: ModelResponse };

/**
 * A language model as the loop sees it. Adapters (`@toolnexus/openai`, `@toolnexus/anthropic`)
 * implement it; `inProcessModel` from `@toolnexus/client` makes one from a function.
 */
export interface Model {
  /** A label for logs and `RunResult.model`, e.g. `"openai:gpt-4o-mini"`. */
  readonly id: string;
  /**
   * The provider the adapter talks to, as OpenTelemetry's GenAI conventions name it in
   * `gen_ai.provider.name` (e.g. `"openai"`, `"anthropic"`, `"gcp.gemini"`), whatever the `id`
   * says. Optional: a model without it is labelled by the prefix of its `id`, if any.
   */
  readonly provider?: string;
  generate(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse>;
  /** Optional streaming; when absent the loop falls back to `generate`. */
  stream?(request: ModelRequest, options?: ModelCallOptions): AsyncIterable<ModelStreamPart>;
}
