import { describe, expect, it } from "vitest";
import { compose, unescapeJson } from "./json-escapes.js";

const spans = (decoded: ReturnType<typeof unescapeJson>) =>
  [...decoded.start].map((start, index) => [start, decoded.end[index]]);

describe("unescapeJson", () => {
  it("decodes every JSON string escape and says where each character came from", () => {
    const decoded = unescapeJson('a\\/\\u0062\\"\\\\\\n\\t\\b\\f\\r');
    expect(decoded.text).toBe('a/b"\\\n\t\b\f\r');
    expect(spans(decoded)).toEqual([
      [0, 1],
      [1, 3],
      [3, 9],
      [9, 11],
      [11, 13],
      [13, 15],
      [15, 17],
      [17, 19],
      [19, 21],
      [21, 23],
    ]);
  });

  it("keeps a backslash that starts no valid escape, and an unfinished one", () => {
    expect(unescapeJson("C:\\x \\u12G4 \\u00").text).toBe("C:\\x \\u12G4 \\u00");
    expect(unescapeJson("").text).toBe("");
  });

  it("decodes upper-case hex and surrogate pairs", () => {
    expect(unescapeJson("\\u004A\\ud83d\\ude00").text).toBe("J😀");
  });
});

describe("compose", () => {
  it("takes a second level's positions back to the original text", () => {
    // A JSON document quoted inside a JSON string: `\\u0041` is `\u0041`, then `A`.
    const outer = unescapeJson("x\\\\u0041y");
    expect(outer.text).toBe("x\\u0041y");
    const inner = compose(outer, unescapeJson(outer.text));
    expect(inner.text).toBe("xAy");
    expect(spans(inner)).toEqual([
      [0, 1],
      [1, 8],
      [8, 9],
    ]);
  });
});
