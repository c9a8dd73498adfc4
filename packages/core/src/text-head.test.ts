import { describe, expect, it } from "vitest";
import { quotedStart, textHead } from "./text-head.js";

describe("textHead", () => {
  it("keeps short text whole and cuts long text to max units", () => {
    expect(textHead("abc", 5)).toBe("abc");
    expect(textHead("abcdef", 4)).toBe("abcd");
  });

  it("never ends in half a surrogate pair", () => {
    expect(textHead("abc😀def", 4)).toBe("abc");
    expect(textHead("abc😀def", 5)).toBe("abc😀");
  });
});

describe("quotedStart", () => {
  it("quotes the start JSON-escaped and gives the length", () => {
    expect(quotedStart("x".repeat(100))).toBe(`"${"x".repeat(40)}"… (100 characters)`);
    expect(quotedStart('a"b\nc', 3)).toBe('"a\\"b"… (5 characters)');
  });
});
