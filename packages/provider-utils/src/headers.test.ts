import { afterEach, describe, expect, it, vi } from "vitest";
import { mergeHeaders, userAgent } from "./headers.js";

describe("mergeHeaders", () => {
  it("merges case-insensitively, lower-cases names, and the later set wins", () => {
    expect(
      mergeHeaders({ authorization: "Bearer env", "content-type": "application/json" }, undefined, {
        Authorization: "Bearer mine",
        "X-Title": "t",
      }),
    ).toEqual({
      authorization: "Bearer mine",
      "content-type": "application/json",
      "x-title": "t",
    });
  });

  it("keeps one value when a set repeats a name in two cases (the last wins)", () => {
    expect(mergeHeaders({ "X-Api-Key": "a", "x-api-key": "b" })).toEqual({ "x-api-key": "b" });
  });
});

describe("userAgent", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("names the product, its version and the runtime", () => {
    expect(userAgent("toolnexus-openai", "1.2.3")).toBe(
      `toolnexus-openai/1.2.3 node/${process.versions.node}`,
    );
  });

  it("is undefined outside a server runtime (a browser sets its own)", () => {
    vi.stubGlobal("process", undefined);
    expect(userAgent("toolnexus-openai", "1.2.3")).toBeUndefined();
  });
});
