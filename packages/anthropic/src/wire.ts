/**
 * The parts of the Messages API wire format this adapter writes. Kept local (the
 * `@anthropic-ai/sdk` package is a dev dependency only); the tests check these shapes against
 * the SDK's types.
 */

export interface TextBlockParam {
  type: "text";
  text: string;
}

export interface ToolUseBlockParam {
  type: "tool_use";
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** The image types the API takes (core's IMAGE_MIME_TYPES). */
export type ImageMediaType = "image/jpeg" | "image/png" | "image/gif" | "image/webp";

/** An image, base64 in the request (a tool result's image part). */
export interface ImageBlockParam {
  type: "image";
  source: { type: "base64"; media_type: ImageMediaType; data: string };
}

export interface ToolResultBlockParam {
  type: "tool_result";
  tool_use_id: string;
  /** Text, or text and images when the result has image parts. */
  content: string | (TextBlockParam | ImageBlockParam)[];
  is_error: boolean;
}

/** A thinking block, sent back exactly as the API returned it (its signature verifies it). */
export interface ThinkingBlockParam {
  type: "thinking";
  thinking: string;
  signature: string;
}

/** A thinking block the API returned encrypted; sent back unchanged. */
export interface RedactedThinkingBlockParam {
  type: "redacted_thinking";
  data: string;
}

export type UserBlockParam = TextBlockParam | ToolResultBlockParam;
export type AssistantBlockParam =
  | ThinkingBlockParam
  | RedactedThinkingBlockParam
  | TextBlockParam
  | ToolUseBlockParam;

export type MessageParam =
  | { role: "user"; content: string | UserBlockParam[] }
  | { role: "assistant"; content: string | AssistantBlockParam[] };

export interface ToolParam {
  name: string;
  description: string;
  input_schema: { type: "object"; [keyword: string]: unknown };
}

/** `tool_choice`: a mode, or one named tool. */
export type ToolChoiceParam =
  | { type: "auto" }
  | { type: "any" }
  | { type: "none" }
  | { type: "tool"; name: string };

interface MessagesRequestBase {
  model: string;
  max_tokens: number;
  system?: string;
  messages: MessageParam[];
  tools?: ToolParam[];
  tool_choice?: ToolChoiceParam;
}

/**
 * The request body the adapter builds, before `requestParams` (untyped, any documented key) are
 * merged in: a plain call or a streamed one.
 */
export type MessagesRequestBody =
  | (MessagesRequestBase & { stream?: never })
  | (MessagesRequestBase & { stream: true });
