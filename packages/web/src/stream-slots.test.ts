import { describe, expect, it } from "vitest";
import { WebError } from "./errors.js";
import { streamSlots } from "./stream-slots.js";

describe("streamSlots", () => {
  it("refuses a caller's stream past the cap with 429 too_many_streams, per caller", () => {
    const slots = streamSlots(2);
    const first = slots.take("alice");
    slots.take("alice");
    let refused: unknown;
    try {
      slots.take("alice");
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(WebError);
    expect([(refused as WebError).status, (refused as WebError).code]).toEqual([
      429,
      "too_many_streams",
    ]);
    expect(slots.open("bob")).toBe(0);
    slots.take("bob"); // another caller's slots are their own
    first();
    first(); // a second release frees nothing more
    expect(slots.open("alice")).toBe(1);
    slots.take("alice");
    expect(slots.open("alice")).toBe(2);
  });

  it("refuses a cap that is not a whole number, 1 or more", () => {
    expect(() => streamSlots(0)).toThrow(TypeError);
  });
});
