// Test-only helpers (never exported from the package): payloads shaped like the documented
// Chat Completions responses and stream chunks, checked against the official SDK's types.
import { sseEvent } from "@toolnexus/provider-utils/testing";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionMessageFunctionToolCall,
} from "openai/resources/chat/completions";

export const CREATED = 1_733_150_000;
export const MODEL = "gpt-4o-mini";

/** A non-streamed completion with text and/or tool calls. */
export function completion(init: {
  id?: string;
  text?: string | null;
  toolCalls?: { id: string; name: string; arguments: string }[];
  usage?: [prompt: number, completion: number];
  finishReason?: ChatCompletion.Choice["finish_reason"];
}): ChatCompletion {
  const toolCalls = init.toolCalls ?? [];
  const [prompt, completionTokens] = init.usage ?? [10, 5];
  return {
    id: init.id ?? "chatcmpl-AbC123",
    object: "chat.completion",
    created: CREATED,
    model: "gpt-4o-mini-2024-07-18",
    system_fingerprint: "fp_0ba0d124f1",
    service_tier: "default",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: init.text === undefined ? null : init.text,
          refusal: null,
          annotations: [],
          ...(toolCalls.length > 0
            ? {
                tool_calls: toolCalls.map(
                  (call): ChatCompletionMessageFunctionToolCall => ({
                    id: call.id,
                    type: "function",
                    function: { name: call.name, arguments: call.arguments },
                  }),
                ),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: init.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
      },
    ],
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completionTokens,
      total_tokens: prompt + completionTokens,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    },
  };
}

/** One stream chunk with the given delta (or none, for the usage chunk). */
export function chunk(
  id: string,
  delta: ChatCompletionChunk.Choice.Delta | undefined,
  finishReason: ChatCompletionChunk.Choice["finish_reason"] = null,
  usage: ChatCompletionChunk["usage"] = null,
): ChatCompletionChunk {
  return {
    id,
    object: "chat.completion.chunk",
    created: CREATED,
    model: "gpt-4o-mini-2024-07-18",
    system_fingerprint: "fp_0ba0d124f1",
    service_tier: "default",
    choices:
      delta === undefined ? [] : [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    usage,
  };
}

/**
 * The SSE body of a streamed completion, as OpenAI sends it: a role chunk, text deltas, tool
 * call fragments (the first with id and name), a finish chunk, the usage chunk and `[DONE]`.
 */
export function streamBody(init: {
  id?: string;
  text?: string[];
  toolCalls?: { id: string; name: string; fragments: string[] }[];
  usage?: [prompt: number, completion: number];
  finishReason?: ChatCompletionChunk.Choice["finish_reason"];
  done?: boolean;
}): string {
  const id = init.id ?? "chatcmpl-AbC123";
  const toolCalls = init.toolCalls ?? [];
  const chunks: ChatCompletionChunk[] = [
    chunk(id, { role: "assistant", content: toolCalls.length > 0 ? null : "", refusal: null }),
  ];
  for (const text of init.text ?? []) chunks.push(chunk(id, { content: text }));
  toolCalls.forEach((call, index) => {
    chunks.push(
      chunk(id, {
        tool_calls: [
          { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } },
        ],
      }),
    );
    for (const fragment of call.fragments) {
      chunks.push(chunk(id, { tool_calls: [{ index, function: { arguments: fragment } }] }));
    }
  });
  chunks.push(chunk(id, {}, init.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop")));
  if (init.usage !== undefined) {
    const [prompt, completionTokens] = init.usage;
    chunks.push(
      chunk(id, undefined, null, {
        prompt_tokens: prompt,
        completion_tokens: completionTokens,
        total_tokens: prompt + completionTokens,
      }),
    );
  }
  const body = chunks.map((c) => sseEvent(c)).join("");
  return init.done === false ? body : `${body}data: [DONE]\n\n`;
}
