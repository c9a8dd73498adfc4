// One line per transcript message, journal entry and event, for people. Stored text is shown
// capped and on one line; nothing in it can move the cursor or change colours.
import type { JournalEntry, Message, RecordedRunEvent } from "@toolnexus/core";
import { oneLine } from "./format.js";

const compact = (value: unknown, max: number): string => {
  let json: string;
  try {
    json = JSON.stringify(value) ?? "";
  } catch {
    json = String(value);
  }
  return oneLine(json, max);
};

/** `assistant: text → deploy({"env":"prod"})`, `tool deploy (error): output`. */
export function describeMessage(message: Message): string {
  switch (message.role) {
    case "assistant": {
      const calls = (message.toolCalls ?? []).map(
        (call) => `${call.name}(${compact(call.args, 80)})`,
      );
      const text = message.content === "" ? "" : oneLine(message.content, 200);
      return `assistant: ${[text, ...calls.map((call) => `→ ${call}`)].filter(Boolean).join(" ")}`;
    }
    case "tool":
      return `tool ${message.name}${message.isError ? " (error)" : ""}: ${oneLine(message.content, 200)}`;
    default:
      return `${message.role}: ${oneLine(message.content, 200)}`;
  }
}

/** A call that finished in the step in flight. */
export function describeJournalEntry(entry: JournalEntry): string {
  const { record } = entry;
  const answered = entry.answered === undefined ? "" : ` (answered ${oneLine(entry.answered, 40)})`;
  return `${oneLine(record.name, 40)} ${record.status}${answered}: ${oneLine(entry.message.content, 160)}`;
}

/** An event's data in a few words. */
export function describeEvent(event: RecordedRunEvent): string {
  const d = event.data;
  const str = (value: unknown, max = 120) =>
    oneLine(typeof value === "string" ? value : compact(value, max), max);
  switch (event.type) {
    case "text":
    case "reasoning":
      return `turn ${str(d.turn)}: ${str(d.text, 160)}`;
    case "tool_call":
      return `${str(d.name, 40)}(${compact(d.args, 100)})`;
    case "tool_result":
      return `${str(d.name, 40)}${d.isError === true ? " error" : ""}: ${str(d.output, 140)}`;
    case "suspended": {
      const requests = Array.isArray(d.requests) ? d.requests : [];
      return requests
        .map((r) => {
          const request = (r ?? {}) as { id?: unknown; kind?: unknown; prompt?: unknown };
          return `${str(request.kind, 20)} ${str(request.id, 40)} "${str(request.prompt, 80)}"`;
        })
        .join("; ");
    }
    case "answered":
      return `${str(d.requestId, 40)} ${d.ok === true ? "ok" : `not ok (${str(d.reason ?? "declined", 20)})`}${d.by === undefined ? "" : ` by ${str(d.by, 60)}`}`;
    default:
      return Object.keys(d).length === 0 ? "" : compact(d, 160);
  }
}
