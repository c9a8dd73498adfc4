// The events of a durable run, recorded in its store so that any process can follow the run:
// a web process that started it, a page that reconnects, an operator's terminal. The loop
// appends what it does (turns, text, tool calls and results, progress); the store appends what
// changes the run's state (started, suspended, answered, continued, cancel requested, and the
// end), in the same write as the change, so a follower never sees a state without its event.
import { WireFormatError } from "./errors.js";

/** What a recorded event says happened. */
export type RunEventType =
  /** The run became durable: `{ sessionId?, agent? }`. */
  | "started"
  /** A model turn began: `{ turn }`. */
  | "turn"
  /**
   * The transcript was compacted before the turn's model call: `{ turn, beforeTokens,
   * afterTokens, beforeMessages, afterMessages, summarized }`.
   */
  | "compaction"
  /** Assistant text, deltas coalesced: `{ turn, text }`. */
  | "text"
  /** Reasoning the provider showed, deltas coalesced like text: `{ turn, text }`. */
  | "reasoning"
  /** The model called a tool: `{ callId, name, args }`. */
  | "tool_call"
  /** A call ended: `{ callId, name, isError, timedOut, output }` (`output` capped). */
  | "tool_result"
  /** A tool reported progress: `{ callId, progress, total?, message? }`. */
  | "progress"
  /** The run halted for answers: `{ requests }` (the Requests as asked). */
  | "suspended"
  /** An answer was recorded: `{ requestId, ok, reason?, by? }` (never the answer's data). */
  | "answered"
  /** A worker took the run on: `{ owner, reason }` (`ready`, `expired`, `takeover`, `failed`). */
  | "continued"
  /** Someone asked a running run to stop: `{ by?, reason? }`. */
  | "cancel_requested"
  /** The run ended cancelled: `{ by?, reason? }`. */
  | "cancelled"
  /** The run ended done: `{ text }`. */
  | "done"
  /** The run ended failed: `{ code, message }`. */
  | "failed";

/** Every event type, in the order a run usually meets them. */
export const RUN_EVENT_TYPES: readonly RunEventType[] = [
  "started",
  "turn",
  "compaction",
  "text",
  "reasoning",
  "tool_call",
  "tool_result",
  "progress",
  "suspended",
  "answered",
  "continued",
  "cancel_requested",
  "cancelled",
  "done",
  "failed",
];

/** The events after which a run records nothing more: a follower stops there. */
export const TERMINAL_RUN_EVENTS: ReadonlySet<RunEventType> = new Set([
  "done",
  "failed",
  "cancelled",
]);

/** The events the loop appends itself ({@link RunStore.appendEvents}); stores write the rest. */
export const LOOP_RUN_EVENTS: ReadonlySet<RunEventType> = new Set([
  "turn",
  "compaction",
  "text",
  "reasoning",
  "tool_call",
  "tool_result",
  "progress",
]);

/** An event before it is recorded: its type and JSON data. */
export interface RunEventInit {
  type: RunEventType;
  data?: Record<string, unknown>;
}

/** One recorded event of a run. */
export interface RecordedRunEvent {
  runId: string;
  /** 1, 2, 3…: increasing by one within the run, never reused. */
  offset: number;
  /** ISO time it was recorded. */
  at: string;
  type: RunEventType;
  data: Record<string, unknown>;
}

/** The most a `tool_result` event keeps of a call's output (the transcript keeps all of it). */
export const MAX_EVENT_OUTPUT_CHARS = 4_000;
/** The most one event's data may take as JSON. */
export const MAX_EVENT_DATA_CHARS = 64 * 1024;
/** The most events one {@link RunStore.readEvents} call returns. */
export const MAX_EVENTS_PER_READ = 1_000;

/** Who answered, or who cancelled: an identity the host authenticated, never the model's words. */
export const MAX_ACTOR_CHARS = 256;

/**
 * Checks and copies events the loop appends: a known loop type and JSON data within
 * {@link MAX_EVENT_DATA_CHARS}. Throws a TypeError for a programming error, a WireFormatError
 * for data that is not JSON.
 */
export function checkLoopEvents(events: readonly RunEventInit[], where: string): RunEventInit[] {
  return checkLoopEventTexts(events, where).map(({ type, json }) => ({
    type,
    data: JSON.parse(json) as Record<string, unknown>,
  }));
}

/** An event the loop appends, checked, with its data as the JSON text a store keeps. */
export interface LoopEventText {
  type: RunEventType;
  /** The event's data as JSON (`{}` when it had none), within {@link MAX_EVENT_DATA_CHARS}. */
  json: string;
}

/**
 * The checks of {@link checkLoopEvents}, giving each event's data as JSON text: a store that
 * keeps text makes it once instead of copying the data and writing it again.
 */
export function checkLoopEventTexts(
  events: readonly RunEventInit[],
  where: string,
): LoopEventText[] {
  if (!Array.isArray(events)) throw new TypeError(`${where}: events must be an array`);
  const checked: LoopEventText[] = [];
  for (let i = 0; i < events.length; i++) {
    const event = events[i];
    if (typeof event !== "object" || event === null || !LOOP_RUN_EVENTS.has(event.type)) {
      throw new TypeError(
        `${where}: events[${i}].type must be one the loop records (${[...LOOP_RUN_EVENTS].join(", ")})`,
      );
    }
    checked.push({
      type: event.type,
      json: eventDataJson(event.data, `${where}: events[${i}].data`),
    });
  }
  return checked;
}

/** JSON data of an event, copied; `{}` when absent. */
export function eventData(data: unknown, where: string): Record<string, unknown> {
  return JSON.parse(eventDataJson(data, where)) as Record<string, unknown>;
}

/** An event's data as JSON text (`{}` when absent), checked as {@link eventData} checks it. */
function eventDataJson(data: unknown, where: string): string {
  if (data === undefined) return "{}";
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new TypeError(`${where} must be an object`);
  }
  let json: string;
  try {
    json = JSON.stringify(data);
  } catch (thrown) {
    throw new WireFormatError("event", [
      { field: where, message: `${where} is not JSON: ${(thrown as Error).message}` },
    ]);
  }
  if (json.length > MAX_EVENT_DATA_CHARS) {
    throw new WireFormatError("event", [
      {
        field: where,
        message: `${where} takes ${json.length} characters as JSON, over the ${MAX_EVENT_DATA_CHARS} an event may hold`,
      },
    ]);
  }
  return json;
}

/** The offset to read after: a whole number ≥ 0 (0: from the first event). */
export function checkEventOffset(after: unknown, where: string): number {
  if (typeof after !== "number" || !Number.isSafeInteger(after) || after < 0) {
    throw new TypeError(`${where}: after must be a whole number of events, 0 or more`);
  }
  return after;
}

/** How many events to read: 1 to {@link MAX_EVENTS_PER_READ} (default the maximum). */
export function eventReadLimit(limit: unknown, where: string): number {
  if (limit === undefined) return MAX_EVENTS_PER_READ;
  if (typeof limit !== "number" || !Number.isSafeInteger(limit) || limit < 1) {
    throw new TypeError(`${where}: limit must be a whole number, 1 or more`);
  }
  return Math.min(limit, MAX_EVENTS_PER_READ);
}

/**
 * An actor (who answered, who cancelled) as a store keeps it: a non-empty string of at most
 * {@link MAX_ACTOR_CHARS} characters, or `undefined`. Throws a WireFormatError otherwise.
 */
export function checkActor(by: unknown, where: string): string | undefined {
  if (by === undefined) return undefined;
  if (typeof by !== "string" || by === "" || by.length > MAX_ACTOR_CHARS) {
    throw new WireFormatError("options", [
      {
        field: where,
        message: `${where} must be a non-empty string of at most ${MAX_ACTOR_CHARS} characters`,
      },
    ]);
  }
  return by;
}

/** A reason given with a cancel, capped like an error message. */
export function checkCancelReason(reason: unknown, where: string): string | undefined {
  if (reason === undefined) return undefined;
  if (typeof reason !== "string") {
    throw new WireFormatError("options", [{ field: where, message: `${where} must be a string` }]);
  }
  return reason.length > 1_000 ? `${reason.slice(0, 999)}…` : reason;
}

/** A tool's output as a `tool_result` event keeps it. */
export function eventOutput(output: string): string {
  return output.length > MAX_EVENT_OUTPUT_CHARS
    ? `${output.slice(0, MAX_EVENT_OUTPUT_CHARS)}… [${output.length - MAX_EVENT_OUTPUT_CHARS} more characters in the transcript]`
    : output;
}
