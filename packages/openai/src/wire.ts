/**
 * The parts of the Chat Completions wire format this adapter writes and reads. Kept local (the
 * `openai` SDK is a dev dependency only); the tests check these shapes against the SDK's types.
 */

export interface ChatToolCallParam {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** A piece of a user message: text, or an image as a `data:` URL. */
export type ChatUserContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string } };

export type ChatMessageParam =
  | { role: "system"; content: string }
  | { role: "user"; content: string | ChatUserContentPart[] }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCallParam[] }
  | { role: "tool"; tool_call_id: string; content: string };

export interface ChatToolParam {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** `tool_choice`: a mode, or one named function. */
export type ChatToolChoice =
  | "auto"
  | "none"
  | "required"
  | { type: "function"; function: { name: string } };

interface ChatRequestBase {
  model: string;
  messages: ChatMessageParam[];
  tools?: ChatToolParam[];
  tool_choice?: ChatToolChoice;
  max_tokens?: number;
  max_completion_tokens?: number;
}

/**
 * The request body the adapter builds, before `requestParams` (untyped, any documented key) are
 * merged in: a plain call, or a streamed one asking for usage in the last chunk.
 */
export type ChatRequestBody =
  | (ChatRequestBase & { stream?: never; stream_options?: never })
  | (ChatRequestBase & { stream: true; stream_options: { include_usage?: boolean } });

/** `usage` of a completion or of the last stream chunk. */
export interface ChatUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  /** `cached_tokens`: prompt tokens served from the prompt cache (part of `prompt_tokens`). */
  prompt_tokens_details?: { cached_tokens?: number } | null;
  /** `reasoning_tokens`: hidden reasoning tokens (part of `completion_tokens`). */
  completion_tokens_details?: { reasoning_tokens?: number } | null;
}
