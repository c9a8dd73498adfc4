import { describe, expect, it } from "vitest";
import { oneLine, painter, table } from "./format.js";

describe("table", () => {
  it("aligns columns to the widest cell, without colour codes when painting is off", () => {
    const text = table(
      ["RUN", "STATE", "NOTE"],
      [
        ["run_1", { text: "waiting", colour: "yellow" }, "a"],
        ["run_long_id", "done", ""],
      ],
      painter(false),
    );
    expect(text).toBe(
      ["RUN          STATE    NOTE", "run_1        waiting  a", "run_long_id  done", ""].join("\n"),
    );
  });

  it("paints cells when painting is on", () => {
    const text = table(["A"], [[{ text: "x", colour: "red" }]], painter(true));
    expect(text).toContain("\u001b[31mx\u001b[0m");
  });
});

describe("oneLine", () => {
  it("flattens line breaks, neutralises control characters and caps the length", () => {
    expect(oneLine("a\nb\tc")).toBe("a b c");
    expect(oneLine("\u001b[2Jgone")).toBe("?[2Jgone");
    expect(oneLine("x".repeat(100), 10)).toBe(`${"x".repeat(9)}…`);
  });
});
