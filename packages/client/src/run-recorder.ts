// What a durable run records of itself for followers (`client.follow`): turns, text, tool calls
// and results, progress. Events are buffered and written with the run's next durable write
// (or the next lease renewal), so a step costs at most one extra write; streamed text is
// coalesced, never a row per token.
import { callIdOf, eventOutput, type RunEventInit } from "@toolnexus/core";
import type { RunEvent } from "./types.js";

/** Streamed text is written as one event per this many characters at most. */
export const TEXT_EVENT_CHARS = 4_000;

export class RunRecorder {
  private events: RunEventInit[] = [];
  private text = "";
  private textTurn = 0;
  /** The last turn a `turn` event was recorded for, and whether it has had text. */
  private turn = 0;
  private turnHadText = false;

  /** Takes one of the run's events (the ones `onEvent` sees); ignores what it does not record. */
  take(event: RunEvent): void {
    switch (event.type) {
      case "text":
        this.beginTurn(event.turn);
        if (event.delta === "") return;
        this.turnHadText = true;
        this.text += event.delta;
        this.textTurn = event.turn;
        if (this.text.length >= TEXT_EVENT_CHARS) this.closeText();
        return;
      case "message":
        this.beginTurn(event.turn);
        // A run that does not stream records the turn's text whole, from its message.
        if (!this.turnHadText && event.message.content !== "") {
          this.turnHadText = true;
          this.events.push({
            type: "text",
            data: { turn: event.turn, text: event.message.content },
          });
        }
        this.closeText();
        return;
      case "tool_call":
        this.closeText();
        this.events.push({
          type: "tool_call",
          data: { callId: callIdOf(event.call), name: event.call.name, args: event.call.args },
        });
        return;
      case "tool_result":
        this.closeText();
        this.events.push({
          type: "tool_result",
          data: {
            callId: callIdOf(event.call),
            name: event.call.name,
            isError: event.isError,
            timedOut: event.record.timedOut,
            output: eventOutput(event.record.result.output),
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
    this.events.push({ type: "text", data: { turn: this.textTurn, text: this.text } });
    this.text = "";
  }
}
