import { describe, expect, it } from "vitest";
import { MAX_ESCAPE_DEPTH, unescapedTexts, unescapedViews, unescapeOnce } from "./json-escapes.js";

describe("unescapeOnce", () => {
  it("undoes every JSON string escape and says where each character came from", () => {
    const view = unescapeOnce('a\\/\\u0062\\"\\\\\\n\\t\\b\\f\\r');
    expect(view.text).toBe('a/b"\\\n\t\b\f\r');
    // The last entry is where the text ends in the original.
    expect([...view.starts]).toEqual([0, 1, 3, 9, 11, 13, 15, 17, 19, 21, 23]);
  });

  it("keeps a backslash that starts no valid escape", () => {
    expect(unescapeOnce("C:\\x \\u12G4 \\q").text).toBe("C:\\x \\u12G4 \\q");
    expect(unescapeOnce("").text).toBe("");
    expect([...unescapeOnce("").starts]).toEqual([0]);
  });

  it("leaves out an escape cut off at the end, and ends the text where it starts", () => {
    for (const cut of ["\\", "\\u", "\\u0", "\\u00", "\\u00E"]) {
      const view = unescapeOnce(`ab\\/${cut}`);
      expect(view.text).toBe("ab/");
      expect(view.starts.at(-1)).toBe(4);
    }
    // A `\u` with too few digits before other text is no escape, not a cut.
    expect(unescapeOnce("\\u00 x").text).toBe("\\u00 x");
  });

  it("undoes upper-case hex and surrogate pairs", () => {
    expect(unescapeOnce("\\u004A\\ud83d\\ude00").text).toBe("J😀");
  });
});

describe("unescapedViews", () => {
  it("takes a second reading's positions back to the original text", () => {
    // A JSON document quoted inside a JSON string: `\\u0041` is `\u0041`, then `A`.
    const [outer, inner] = unescapedViews("x\\\\u0041y");
    expect(outer?.text).toBe("x\\u0041y");
    expect(inner?.text).toBe("xAy");
    expect([...(inner?.starts ?? [])]).toEqual([0, 1, 8, 9]);
  });

  it("reads up to three levels, none for plain text or stray backslashes", () => {
    expect(unescapedViews("no backslash here")).toEqual([]);
    expect(unescapedViews("C:\\x")).toEqual([]);
    const views = unescapedViews("\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\"); // 16 backslashes
    expect(views.map((view) => view.text.length)).toEqual([8, 4, 2]);
    expect(views).toHaveLength(MAX_ESCAPE_DEPTH);
  });

  it("reads the same texts as unescapedTexts, which skips the positions", () => {
    for (const raw of ["x\\\\u0041\\n", "ok \\\\u00", "C:\\x \\/", "plain"]) {
      expect(unescapedTexts(raw)).toEqual(unescapedViews(raw).map((view) => view.text));
    }
    expect(unescapedTexts("a\\\\u0041")).toEqual(["a\\u0041", "aA"]);
  });

  it("ends each reading where an escape cut at any level starts", () => {
    // `\\u00` is a `\u00` cut in the second reading.
    const views = unescapedViews("ok \\\\u00");
    expect(views.map((view) => view.text)).toEqual(["ok \\u00", "ok "]);
    expect(views[1]?.starts.at(-1)).toBe(3);
  });
});
