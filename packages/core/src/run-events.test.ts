import { describe, expect, it } from "vitest";
import { WireFormatError } from "./errors.js";
import {
  checkActor,
  checkCancelReason,
  checkEventOffset,
  checkLoopEvents,
  checkLoopEventTexts,
  eventOutput,
  eventReadLimit,
  LOOP_RUN_EVENTS,
  MAX_ACTOR_CHARS,
  MAX_EVENT_DATA_CHARS,
  MAX_EVENT_OUTPUT_CHARS,
  MAX_EVENTS_PER_READ,
  RUN_EVENT_TYPES,
} from "./run-events.js";

describe("run event checks", () => {
  it("takes the loop's own event types with JSON data, copied", () => {
    const data = { turn: 1, text: "hi" };
    const [event] = checkLoopEvents([{ type: "text", data }], "appendEvents");
    expect(event).toEqual({ type: "text", data });
    expect(event!.data).not.toBe(data);
    expect(checkLoopEvents([{ type: "turn" }], "appendEvents")).toEqual([
      { type: "turn", data: {} },
    ]);
  });

  it("gives a store each event's data as the JSON text it keeps, checked the same way", () => {
    const data = { turn: 1, text: "hi" };
    expect(checkLoopEventTexts([{ type: "text", data }, { type: "turn" }], "appendEvents")).toEqual(
      [
        { type: "text", json: '{"turn":1,"text":"hi"}' },
        { type: "turn", json: "{}" },
      ],
    );
    expect(() => checkLoopEventTexts([{ type: "done" } as never], "appendEvents")).toThrow(
      /events\[0\]\.type must be one the loop records/,
    );
    expect(() => checkLoopEventTexts("no" as never, "appendEvents")).toThrow(/must be an array/);
    const huge = { text: "x".repeat(MAX_EVENT_DATA_CHARS) };
    expect(() => checkLoopEventTexts([{ type: "text", data: huge }], "appendEvents")).toThrow(
      /events\[0\]\.data takes \d+ characters as JSON, over the 65536/,
    );
  });

  it("takes reasoning as a loop event, listed after text", () => {
    const data = { turn: 2, text: "Compare the two totals first." };
    expect(checkLoopEvents([{ type: "reasoning", data }], "appendEvents")).toEqual([
      { type: "reasoning", data },
    ]);
    expect(LOOP_RUN_EVENTS.has("reasoning")).toBe(true);
    expect(RUN_EVENT_TYPES.indexOf("reasoning")).toBe(RUN_EVENT_TYPES.indexOf("text") + 1);
  });

  it("refuses the events a store records itself, and data that is not JSON or too big", () => {
    for (const type of ["done", "answered", "cancelled", "nonsense"]) {
      expect(() => checkLoopEvents([{ type } as never], "appendEvents")).toThrow(TypeError);
    }
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => checkLoopEvents([{ type: "text", data: cyclic }], "appendEvents")).toThrow(
      WireFormatError,
    );
    const huge = { text: "x".repeat(MAX_EVENT_DATA_CHARS) };
    expect(() => checkLoopEvents([{ type: "text", data: huge }], "appendEvents")).toThrow(
      /over the 65536 an event may hold/,
    );
  });

  it("checks offsets, limits, actors and reasons", () => {
    expect(checkEventOffset(0, "readEvents")).toBe(0);
    for (const bad of [-1, 1.5, Number.NaN, "3"]) {
      expect(() => checkEventOffset(bad, "readEvents")).toThrow(TypeError);
    }
    expect(eventReadLimit(undefined, "readEvents")).toBe(MAX_EVENTS_PER_READ);
    expect(eventReadLimit(10 * MAX_EVENTS_PER_READ, "readEvents")).toBe(MAX_EVENTS_PER_READ);
    expect(() => eventReadLimit(0, "readEvents")).toThrow(TypeError);
    expect(checkActor(undefined, "by")).toBeUndefined();
    expect(checkActor("alice", "by")).toBe("alice");
    for (const bad of ["", "x".repeat(MAX_ACTOR_CHARS + 1), 7]) {
      expect(() => checkActor(bad, "by")).toThrow(WireFormatError);
    }
    expect(checkCancelReason("y".repeat(5000), "reason")).toHaveLength(1000);
    expect(() => checkCancelReason(5, "reason")).toThrow(WireFormatError);
  });

  it("keeps the start of a long output and says how much the transcript has", () => {
    expect(eventOutput("short")).toBe("short");
    const long = eventOutput("z".repeat(MAX_EVENT_OUTPUT_CHARS + 10));
    expect(long.startsWith("z".repeat(MAX_EVENT_OUTPUT_CHARS))).toBe(true);
    expect(long).toContain("10 more characters in the transcript");
  });
});
