import { describe, expect, it } from "vitest";
import { placeProblems, problemsByField } from "./issues.js";

describe("problems by field", () => {
  it("splits the handler's `data.<path>: message` lines by path", () => {
    expect(
      problemsByField([
        "data.env: required",
        'data.env: expected one of "a"',
        "data.who.age: must be >= 3",
        'data: must match "then" schema',
        "a line of another shape",
      ]),
    ).toEqual({
      env: ["required", 'expected one of "a"'],
      "who.age": ["must be >= 3"],
      "": ['must match "then" schema', "a line of another shape"],
    });
  });

  it("places them on a field, the nearest field above, or the form", () => {
    const placed = placeProblems(["env", "who"], {
      env: ["required"],
      "who.age": ["must be >= 3"],
      extra: ["unknown field"],
      "": ["must match"],
    });
    expect(placed).toEqual({
      byField: { env: ["required"], who: ["who.age: must be >= 3"] },
      rest: ["extra: unknown field", "must match"],
    });
    // A form that is one JSON field takes the whole answer's problems.
    expect(placeProblems([""], { "": ["must be object"], a: ["required"] }).byField).toEqual({
      "": ["must be object", "a: required"],
    });
  });
});
