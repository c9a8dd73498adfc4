// Cutting a call's output: at the limit, with a note, never between the halves of a surrogate
// pair; toToolResult applies it to text, error text and structuredContent.
import { textHead as head } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_OUTPUT_CHARS } from "./limits.js";
import { toToolResult } from "./mapping.js";
import { capOutput } from "./output-cap.js";

describe("capOutput", () => {
  it("keeps a text within the limit as it is", () => {
    expect(capOutput("abc", 3)).toEqual({ text: "abc", cut: false });
  });

  it("cuts a longer one with a note giving both lengths", () => {
    expect(capOutput("abcdef", 4)).toEqual({
      text: "abcd\n[cut: the result was 6 characters, the limit is 4 (maxOutputChars)]",
      cut: true,
    });
  });

  it("never ends between the halves of a surrogate pair", () => {
    expect(head("ab😀cd", 3)).toBe("ab");
    expect(head("ab😀cd", 4)).toBe("ab😀");
  });
});

describe("toToolResult's limit", () => {
  it("defaults to 1 000 000 characters", () => {
    const long = toToolResult({ content: [{ type: "text", text: "x".repeat(1_000_001) }] });
    expect(long.output.startsWith(`${"x".repeat(DEFAULT_MAX_OUTPUT_CHARS)}\n[cut:`)).toBe(true);
    expect(long.metadata?.truncated).toBe(true);
    const exact = toToolResult({ content: [{ type: "text", text: "x".repeat(1_000_000) }] });
    expect(exact.output).toHaveLength(1_000_000);
    expect(exact.metadata).not.toHaveProperty("truncated");
  });

  it("counts the text parts joined", () => {
    const result = toToolResult(
      {
        content: [
          { type: "text", text: "aaaa" },
          { type: "text", text: "bbbb" },
        ],
      },
      {},
      6,
    );
    expect(result.output).toBe(
      "aaaa\nb\n[cut: the result was 9 characters, the limit is 6 (maxOutputChars)]",
    );
  });
});
