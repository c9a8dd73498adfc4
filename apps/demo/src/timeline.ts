// When each message of a run happened and how long each tool call took, for the inbox's
// transcript. A transcript (a list of messages) carries no times, so every process that runs the
// assistant over the SQLite file (`--durable`, `resume`, `serve`) appends what it saw to a small
// JSON-lines file beside it (`demo.db-timeline.jsonl`). Appends of one short line are atomic, so
// processes sharing the file never interleave inside a line; a missing or damaged file only
// means a transcript without times.
import { appendFileSync, readFileSync } from "node:fs";
import type { RunEvent } from "@toolnexus/client";
import type { Message } from "@toolnexus/core";

/** One thing that happened in a session's run. */
export type TimelineEntry =
  /** A run started: the person's message. */
  | { s: string; k: "run"; at: string }
  /** The model answered (an assistant message, by id). */
  | { s: string; k: "msg"; id: string; at: string }
  /** A call suspended and a person was asked. */
  | { s: string; k: "ask"; id: string; at: string }
  /** A call finished: when, its own working time, and whether the loop stopped it. */
  | { s: string; k: "call"; id: string; at: string; ms: number; timedOut?: boolean };

/** What the transcript shows next to one message; all optional. */
export interface MessageTime {
  /** When it happened (ISO). */
  at?: string;
  /** A tool call's own working time. */
  durationMs?: number;
  /** How long the call waited for a person before it ran with the answer. */
  waitedMs?: number;
  timedOut?: boolean;
}

/** The timeline file that goes with a SQLite file. */
export function timelinePath(dbPath: string): string {
  return `${dbPath}-timeline.jsonl`;
}

/** Records one session's events as they come (give its `onEvent` to the client of that run). */
export function timelineRecorder(
  file: string,
  sessionId: string,
  now: () => Date = () => new Date(),
): { started(): void; onEvent(event: RunEvent): void } {
  const append = (entry: TimelineEntry) => {
    try {
      // Owner-only like the database beside it: it names the session's tools and times.
      appendFileSync(file, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
    } catch {
      // Times are a nicety: a file that cannot be written never stops a run.
    }
  };
  const at = () => now().toISOString();
  return {
    started: () => append({ s: sessionId, k: "run", at: at() }),
    onEvent: (event) => {
      if (event.type === "message") {
        append({ s: sessionId, k: "msg", id: event.message.id, at: at() });
      } else if (event.type === "pending") {
        append({ s: sessionId, k: "ask", id: event.call.id, at: at() });
      } else if (event.type === "tool_result" && !event.pending) {
        const entry: TimelineEntry = {
          s: sessionId,
          k: "call",
          id: event.call.id,
          at: at(),
          ms: Math.round(event.record.durationMs),
        };
        if (event.record.timedOut) entry.timedOut = true;
        append(entry);
      }
    },
  };
}

/** The entries of one session, in the order they were written. */
export function readTimeline(file: string, sessionId: string): TimelineEntry[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const entries: TimelineEntry[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    try {
      const entry = JSON.parse(line) as TimelineEntry;
      if (entry.s === sessionId && typeof entry.at === "string") entries.push(entry);
    } catch {
      // A torn or foreign line: skipped.
    }
  }
  return entries;
}

/**
 * The times of each message of a transcript, matched by position: the n-th user message with the
 * n-th run, and an assistant message or a tool result with the n-th entry of its id (a session
 * that ran twice reuses ids). A tool message still waiting for a person gets the time it asked.
 */
export function messageTimes(
  messages: readonly Message[],
  entries: readonly TimelineEntry[],
): (MessageTime | null)[] {
  const byKey = new Map<string, TimelineEntry[]>();
  for (const entry of entries) {
    const key = entry.k === "run" ? "run" : `${entry.k}:${entry.id}`;
    const list = byKey.get(key) ?? [];
    list.push(entry);
    byKey.set(key, list);
  }
  const seen = new Map<string, number>();
  const nth = (key: string): TimelineEntry | undefined => {
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    return byKey.get(key)?.[n];
  };
  return messages.map((message) => {
    if (message.role === "user") {
      const run = nth("run");
      return run === undefined ? null : { at: run.at };
    }
    if (message.role === "assistant") {
      const msg = nth(`msg:${message.id}`);
      return msg === undefined ? null : { at: msg.at };
    }
    if (message.role === "tool") {
      const call = nth(`call:${message.callId}`);
      const asks = byKey.get(`ask:${message.callId}`) ?? [];
      if (call === undefined || call.k !== "call") {
        const asked = asks.at(-1);
        return asked === undefined ? null : { at: asked.at };
      }
      const time: MessageTime = { at: call.at, durationMs: call.ms };
      if (call.timedOut === true) time.timedOut = true;
      // The latest question of this call before it ran: the wait is from asking to running.
      const ran = Date.parse(call.at) - call.ms;
      const asked = asks.filter((a) => Date.parse(a.at) <= ran).at(-1);
      if (asked !== undefined) time.waitedMs = Math.max(0, ran - Date.parse(asked.at));
      return time;
    }
    return null;
  });
}
