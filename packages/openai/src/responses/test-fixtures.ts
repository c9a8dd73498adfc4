// Test-only helpers (never exported from the package): Responses API payloads shaped as the API
// sends them, after the recordings in ./__fixtures__ (see its README); items, usage and stream
// events are typed with the official SDK's types.
import { readFileSync } from "node:fs";
import type { KitTurn } from "@toolnexus/provider-utils/testing";
import { sseEvent } from "@toolnexus/provider-utils/testing";
import type {
  Response,
  ResponseOutputItem,
  ResponseStreamEvent,
  ResponseUsage,
} from "openai/resources/responses/responses";

export function fixture(name: string): string {
  return readFileSync(new URL(`__fixtures__/${name}`, import.meta.url), "utf8");
}

/** A `.chunks.txt` recording (one event JSON per line) framed as the API streams it. */
export function sseOfChunks(lines: string): string {
  return lines
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => sseEvent(line, (JSON.parse(line) as { type: string }).type))
    .join("");
}

export function usage(turn: KitTurn): ResponseUsage {
  return {
    input_tokens: turn.usage.promptTokens,
    input_tokens_details: { cached_tokens: turn.usage.cacheReadTokens ?? 0 },
    output_tokens: turn.usage.completionTokens,
    output_tokens_details: { reasoning_tokens: turn.usage.reasoningTokens ?? 0 },
    total_tokens: turn.usage.totalTokens,
  };
}

const suffix = (id: string) => id.replace(/[^a-zA-Z0-9]/g, "");

function outputItems(turn: KitTurn): ResponseOutputItem[] {
  const items: ResponseOutputItem[] = [];
  if (turn.text !== undefined && turn.text !== "") {
    items.push({
      id: `msg_${suffix(turn.id)}`,
      type: "message",
      status: turn.stop === "length" ? "incomplete" : "completed",
      content: [{ type: "output_text", annotations: [], logprobs: [], text: turn.text }],
      role: "assistant",
    });
  }
  for (const call of turn.calls ?? []) {
    items.push({
      id: `fc_${suffix(call.id)}`,
      type: "function_call",
      status: "completed",
      arguments: JSON.stringify(call.args),
      call_id: call.id,
      name: call.name,
    });
  }
  return items;
}

/** A `response` object, as `POST /v1/responses` answers (the recording's keys, in its order). */
export function response(
  turn: KitTurn,
  status: "in_progress" | "completed" = "completed",
): Response {
  const incomplete = status === "completed" && turn.stop === "length";
  return {
    id: turn.id,
    object: "response",
    created_at: 1765591383,
    status: incomplete ? "incomplete" : status,
    background: false,
    error: null,
    incomplete_details: incomplete ? { reason: "max_output_tokens" } : null,
    instructions: null,
    max_output_tokens: null,
    max_tool_calls: null,
    model: "gpt-5-mini-2025-08-07",
    output: status === "in_progress" ? [] : outputItems(turn),
    parallel_tool_calls: true,
    previous_response_id: null,
    prompt_cache_key: null,
    reasoning: { effort: "medium", summary: null },
    safety_identifier: null,
    service_tier: "default",
    store: true,
    temperature: 1,
    text: { format: { type: "text" }, verbosity: "medium" },
    tool_choice: "auto",
    tools: [],
    top_logprobs: 0,
    top_p: 1,
    truncation: "disabled",
    usage: status === "in_progress" ? null : usage(turn),
    user: null,
    metadata: {},
    output_text: "",
  } as unknown as Response;
}

/**
 * The SSE body of a streamed response: `response.created`, `response.in_progress`, per item its
 * `output_item.added`, deltas (`output_text.delta` in two pieces, `function_call_arguments.delta`
 * in three) and `output_item.done`, then `response.completed` (or `response.incomplete`).
 */
export function stream(turn: KitTurn): string {
  const events: ResponseStreamEvent[] = [];
  let n = 0;
  const seq = () => n++;
  events.push({
    type: "response.created",
    sequence_number: seq(),
    response: response(turn, "in_progress"),
  });
  events.push({
    type: "response.in_progress",
    sequence_number: seq(),
    response: response(turn, "in_progress"),
  });
  outputItems(turn).forEach((item, output_index) => {
    if (item.type === "message") {
      events.push({
        type: "response.output_item.added",
        sequence_number: seq(),
        output_index,
        item: { ...item, status: "in_progress", content: [] },
      });
      const part = item.content[0];
      const text = part?.type === "output_text" ? part.text : "";
      const half = Math.ceil(text.length / 2);
      for (const delta of [text.slice(0, half), text.slice(half)]) {
        events.push({
          type: "response.output_text.delta",
          sequence_number: seq(),
          item_id: item.id,
          output_index,
          content_index: 0,
          delta,
          logprobs: [],
        });
      }
      events.push({
        type: "response.output_text.done",
        sequence_number: seq(),
        item_id: item.id,
        output_index,
        content_index: 0,
        text,
        logprobs: [],
      });
      events.push({
        type: "response.output_item.done",
        sequence_number: seq(),
        output_index,
        item,
      });
    } else if (item.type === "function_call") {
      events.push({
        type: "response.output_item.added",
        sequence_number: seq(),
        output_index,
        item: { ...item, status: "in_progress", arguments: "" },
      });
      const args = item.arguments;
      for (const delta of [args.slice(0, 4), args.slice(4, 10), args.slice(10)]) {
        events.push({
          type: "response.function_call_arguments.delta",
          sequence_number: seq(),
          item_id: item.id ?? "",
          output_index,
          delta,
        });
      }
      events.push({
        type: "response.function_call_arguments.done",
        sequence_number: seq(),
        item_id: item.id ?? "",
        output_index,
        name: item.name,
        arguments: args,
      });
      events.push({
        type: "response.output_item.done",
        sequence_number: seq(),
        output_index,
        item,
      });
    }
  });
  const final = response(turn);
  events.push(
    final.status === "incomplete"
      ? { type: "response.incomplete", sequence_number: seq(), response: final }
      : { type: "response.completed", sequence_number: seq(), response: final },
  );
  return events.map((event) => sseEvent(event, event.type)).join("");
}
