import { Scrubber } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import { TokenScrubber } from "./scrub.js";

describe("TokenScrubber", () => {
  it("scrubs the configured secrets and the tokens held at the moment", () => {
    let live = ["token-one-0123"];
    const scrub = new TokenScrubber(new Scrubber(["header-secret"]), () => live);
    expect(scrub.text("header-secret token-one-0123")).toBe("*** ***");
    live = ["token-two-4567"];
    expect(scrub.deep({ said: ["token-two-4567", "token-one-0123"] })).toEqual({
      said: ["***", "token-one-0123"],
    });
    expect(scrub.empty).toBe(false);
    expect(new TokenScrubber(new Scrubber([]), () => []).empty).toBe(true);
  });
});
