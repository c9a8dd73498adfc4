// What a durable run records of itself for followers (`client.follow`): turns, reasoning, text,
// tool calls and results, progress. Events are buffered and written with the run's next durable write
// (or the next lease renewal): at most one extra write per durable write (about 1.85× the time
// of a durable step, `pnpm bench:events`); streamed text is coalesced, never a row per token.
import { callIdOf, eventOutput, type RunEventInit } from "@toolnexus/core";
import type { RunEvent } from "./types.js";

/** Streamed text is written as one event per this many characters at most. */
export const TEXT_EVENT_CHARS = 4_000;

export class RunRecorder {
  private events: RunEventInit[] = [];
  private text = "";
  private textTurn = 0;
  /** What the buffered text is: the answer, or the reasoning the provider showed. */
  private textType: "text" | "reasoning" = "text";
  /** The last turn a `turn` event was recorded for, and whether it has had text. */
  private turn = 0;
  private turnHadText = false;

  /** Takes one of the run's events (the ones `onEvent` sees); ignores what it does not record. */
  take(event: RunEvent): void {
    switch (event.type) {
      case "text":
      case "reasoning":
        this.beginTurn(event.turn);
        if (event.delta === "") return;
        if (event.type === "text") this.turnHadText = true;
        // Reasoning and text alternate in one buffer, each run of one kind an event of its own.
        if (event.type !== this.textType) this.closeText();
        this.textType = event.type;
        this.text += event.delta;
        this.textTurn = event.turn;
        if (this.text.length >= TEXT_EVENT_CHARS) this.closeText();
        return;
      case "message": {
        this.beginTurn(event.turn);
        const { content, toolCalls } = event.message;
        this.closeText();
        // A run that does not stream records the turn's text whole, from its message.
        if (!this.turnHadText && content !== "") {
          this.turnHadText = true;
          this.pushText(event.turn, content, "text");
        }
        // The turn's calls, recorded with the step written before they start: a follower
        // sees what runs while it runs.
        for (const call of toolCalls ?? []) {
          this.events.push({
            type: "tool_call",
            data: { callId: callIdOf(call), name: call.name, args: cappedArgs(call.args) },
          });
        }
        return;
      }
      case "tool_result": {
        this.closeText();
        const data: Record<string, unknown> = {
          callId: callIdOf(event.call),
          name: event.call.name,
          isError: event.isError,
          timedOut: event.record.timedOut,
          output: eventOutput(event.record.result.output),
        };
        // The call halted for a human: its output is the question, not a result.
        if (event.pending) data.pending = true;
        // A policy's decision on the call (allow, deny, or who approved), for the audit trail.
        const policy = event.record.result.metadata?.policy;
        if (typeof policy === "object" && policy !== null) data.policy = policy;
        this.events.push({ type: "tool_result", data });
        return;
      }
      case "compaction":
        this.closeText();
        this.events.push({
          type: "compaction",
          data: {
            turn: event.turn,
            beforeTokens: event.before.tokens,
            afterTokens: event.after.tokens,
            beforeMessages: event.before.messages,
            afterMessages: event.after.messages,
            summarized: event.summarized,
          },
        });
        return;
      case "progress": {
        const data: Record<string, unknown> = { callId: event.callId, progress: event.progress };
        if (event.total !== undefined) data.total = event.total;
        if (event.message !== undefined) data.message = event.message.slice(0, 1_000);
        this.events.push({ type: "progress", data });
        return;
      }
      default:
        return;
    }
  }

  /** True when something waits to be written. */
  get pending(): boolean {
    return this.events.length > 0 || this.text !== "";
  }

  /** Everything recorded since the last call, in order; the buffer is emptied. */
  drain(): RunEventInit[] {
    this.closeText();
    const events = this.events;
    this.events = [];
    return events;
  }

  /** Puts back events a write could not record, ahead of newer ones. */
  restore(events: RunEventInit[]): void {
    this.events = events.concat(this.events);
  }

  /** A model turn begins (or its first output arrived): recorded once per turn. */
  beginTurn(turn: number): void {
    if (turn === this.turn) return;
    this.closeText();
    this.turn = turn;
    this.turnHadText = false;
    this.events.push({ type: "turn", data: { turn } });
  }

  private closeText(): void {
    if (this.text === "") return;
    this.pushText(this.textTurn, this.text, this.textType);
    this.text = "";
  }

  /** Text as events of at most TEXT_EVENT_CHARS characters each (an event's data is capped). */
  private pushText(turn: number, text: string, type: "text" | "reasoning"): void {
    for (let at = 0; at < text.length; at += TEXT_EVENT_CHARS) {
      this.events.push({
        type,
        data: { turn, text: text.slice(at, at + TEXT_EVENT_CHARS) },
      });
    }
  }
}

/** The most a `tool_call` event keeps of the arguments as JSON (the transcript keeps them all). */
export const MAX_EVENT_ARGS_CHARS = 16_000;

function cappedArgs(args: Record<string, unknown>): Record<string, unknown> {
  let json: string | undefined;
  try {
    json = JSON.stringify(args);
  } catch {
    json = undefined;
  }
  if (json !== undefined && json.length <= MAX_EVENT_ARGS_CHARS) return args;
  return { truncated: json === undefined ? "not JSON" : `${json.length} characters` };
}
