import { describe, expect, it } from "vitest";
import type { ErrorContext } from "./options.js";
import { reportError } from "./report.js";

describe("reportError", () => {
  const request = new Request("http://127.0.0.1/x");

  it("hands the error to the hook under a fresh id and returns that id", () => {
    const seen: [unknown, ErrorContext][] = [];
    const boom = new Error("secret: db password");
    const id = reportError((error, context) => seen.push([error, context]), "t", request, boom);
    expect(id).toMatch(/^err_[0-9a-f]{32}$/);
    expect(seen).toEqual([[boom, { errorId: id, request }]]);
    expect(reportError(() => {}, "t", request, boom)).not.toBe(id);
  });

  it("swallows a hook that throws", () => {
    const id = reportError(
      () => {
        throw new Error("the hook failed");
      },
      "t",
      request,
      new Error("x"),
    );
    expect(id).toMatch(/^err_/);
  });
});
