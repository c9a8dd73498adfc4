import { describe, expect, it } from "vitest";
import { answerValueOf, problemsOf, rawOf } from "./field-values.js";
import { type FieldSpec, fieldsOf } from "./schema-fields.js";

const field = (schema: Record<string, unknown>): FieldSpec =>
  fieldsOf({ type: "object", properties: { x: schema } })[0]!;

describe("field values", () => {
  it("keeps text while typed and reads it as the schema's type", () => {
    expect(answerValueOf(field({ type: "integer" }), " 42 ")).toBe(42);
    expect(answerValueOf(field({ type: "number" }), "")).toBeUndefined();
    expect(answerValueOf(field({ type: "number" }), "1e")).toBeUndefined();
    expect(answerValueOf(field({ enum: [1, "b", null] }), "2")).toBeNull();
    expect(answerValueOf(field({ type: "boolean" }), false)).toBe(false);
    expect(answerValueOf(field({ type: "array" }), "[1, 2]")).toEqual([1, 2]);
    expect(answerValueOf(field({ type: "string" }), "  keep spaces ")).toBe("  keep spaces ");
  });

  it("starts inputs from values: an enum by its index, JSON pretty-printed", () => {
    expect(rawOf(field({ enum: ["a", { b: 1 }] }), { b: 1 })).toBe("1");
    expect(rawOf(field({ enum: ["a"] }), "zzz")).toBe("");
    expect(rawOf(field({ type: "array" }), [1])).toBe("[\n  1\n]");
    expect(rawOf(field({ type: "boolean" }), undefined)).toBe(false);
    expect(rawOf(field({ type: "integer" }), 3)).toBe("3");
  });

  it("says what is wrong in plain words", () => {
    expect(problemsOf(field({ type: "string" }), " ", true)).toEqual(["Fill this in."]);
    expect(problemsOf(field({ enum: ["a"] }), "", true)).toEqual(["Choose an option."]);
    expect(problemsOf(field({ type: "string" }), "", false)).toEqual([]);
    expect(problemsOf(field({ type: "string", maxLength: 1 }), "ab", false)).toEqual([
      "Use at most 1 character.",
    ]);
    // Length in characters, not UTF-16 units: one emoji is one character.
    expect(problemsOf(field({ type: "string", maxLength: 1 }), "😀", false)).toEqual([]);
    expect(problemsOf(field({ type: "string", format: "uri" }), "example.com", false)).toEqual([
      "Enter a full web address, like https://example.com.",
    ]);
    expect(problemsOf(field({ type: "string", format: "date" }), "2026-02-30x", false)).toEqual([
      "Enter a date as YYYY-MM-DD.",
    ]);
    expect(problemsOf(field({ type: "string", format: "hostname" }), "any thing", false)).toEqual(
      [],
    );
    expect(problemsOf(field({ type: "string", pattern: "(" }), "x", false)).toEqual([]);
    expect(problemsOf(field({ type: "number" }), "abc", false)).toEqual(["Enter a number."]);
    expect(problemsOf(field({ type: "number", minimum: 0 }), "-1", false)).toEqual([
      "Use 0 or more.",
    ]);
    expect(problemsOf(field({ type: "number", exclusiveMinimum: 0 }), "0", false)).toEqual([
      "Use more than 0.",
    ]);
    expect(problemsOf(field({ type: "number", multipleOf: 0.1 }), "0.3", false)).toEqual([]);
    expect(problemsOf(field({ type: "number", multipleOf: 5 }), "7", false)).toEqual([
      "Use a multiple of 5.",
    ]);
    expect(problemsOf(field({ enum: ["a"] }), "9", false)).toEqual(["Choose one of the options."]);
    expect(problemsOf(field({ type: "boolean" }), false, true)).toEqual([]);
  });
});
