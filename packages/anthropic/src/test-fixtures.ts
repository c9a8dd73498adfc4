// Test-only helpers (never exported from the package): payloads shaped like the documented
// Messages API responses and SSE events, checked against the official SDK's types.
import type {
  ContentBlock,
  Message,
  RawMessageStreamEvent,
  StopReason,
  Usage,
} from "@anthropic-ai/sdk/resources/messages";
import type { ErrorResponse } from "@anthropic-ai/sdk/resources/shared";
import { sseEvent } from "@toolnexus/provider-utils/testing";

export const MODEL = "claude-sonnet-4-5";

function usage(input: number, output: number): Usage {
  return {
    input_tokens: input,
    output_tokens: output,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation: null,
    inference_geo: null,
    output_tokens_details: null,
    server_tool_use: null,
    service_tier: "standard",
    speed: null,
  };
}

/** A non-streamed Message with text and/or tool_use blocks. */
export function message(init: {
  id?: string;
  text?: string;
  toolUses?: { id: string; name: string; input: Record<string, unknown> }[];
  usage?: [input: number, output: number];
  stopReason?: StopReason;
}): Message {
  const content: ContentBlock[] = [];
  if (init.text !== undefined) content.push({ type: "text", text: init.text, citations: null });
  for (const use of init.toolUses ?? []) {
    content.push({
      type: "tool_use",
      id: use.id,
      name: use.name,
      input: use.input,
      caller: { type: "direct" },
    });
  }
  const [input, output] = init.usage ?? [10, 5];
  return {
    id: init.id ?? "msg_01XFDUDYJgAACzvnptvVoYEL",
    type: "message",
    role: "assistant",
    model: MODEL,
    content,
    stop_reason: init.stopReason ?? ((init.toolUses ?? []).length > 0 ? "tool_use" : "end_turn"),
    stop_sequence: null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: usage(input, output),
  };
}

/** One SSE event as Anthropic sends it: `event: <type>` and its JSON data. */
export function event(data: RawMessageStreamEvent | ErrorResponse | { type: "ping" }): string {
  return sseEvent(data, data.type);
}

/**
 * The SSE body of a streamed Message: message_start, a ping, a text block with deltas, a
 * tool_use block per call with `input_json_delta` fragments, message_delta (stop reason and
 * usage) and message_stop.
 */
export function streamBody(init: {
  id?: string;
  text?: string[];
  toolUses?: { id: string; name: string; fragments: string[] }[];
  usage?: [input: number, output: number];
  stopReason?: StopReason;
  stop?: boolean;
}): string {
  const [input, output] = init.usage ?? [10, 5];
  const events: string[] = [
    event({
      type: "message_start",
      message: {
        ...message({ id: init.id, usage: [input, 1] }),
        content: [],
        stop_reason: null,
      },
    }),
    event({ type: "ping" }),
  ];
  let index = 0;
  if (init.text !== undefined) {
    events.push(
      event({
        type: "content_block_start",
        index,
        content_block: { type: "text", text: "", citations: null },
      }),
    );
    for (const text of init.text) {
      events.push(
        event({ type: "content_block_delta", index, delta: { type: "text_delta", text } }),
      );
    }
    events.push(event({ type: "content_block_stop", index }));
    index++;
  }
  for (const use of init.toolUses ?? []) {
    events.push(
      event({
        type: "content_block_start",
        index,
        content_block: {
          type: "tool_use",
          id: use.id,
          name: use.name,
          input: {},
          caller: { type: "direct" },
        },
      }),
    );
    for (const partial_json of use.fragments) {
      events.push(
        event({
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json },
        }),
      );
    }
    events.push(event({ type: "content_block_stop", index }));
    index++;
  }
  events.push(
    event({
      type: "message_delta",
      delta: {
        stop_reason:
          init.stopReason ?? ((init.toolUses ?? []).length > 0 ? "tool_use" : "end_turn"),
        stop_sequence: null,
        stop_details: null,
        container: null,
      },
      usage: {
        input_tokens: input,
        output_tokens: output,
        cache_creation_input_tokens: null,
        cache_read_input_tokens: null,
        output_tokens_details: null,
        server_tool_use: null,
      },
    }),
  );
  if (init.stop !== false) events.push(event({ type: "message_stop" }));
  return events.join("");
}
