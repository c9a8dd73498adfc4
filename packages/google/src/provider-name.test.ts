import { describe, expect, it } from "vitest";
import { google } from "./index.js";

describe("gen_ai.provider.name", () => {
  it("the model says it talks to the Gemini API (gcp.gemini), whatever its id", () => {
    expect(google({ model: "gemini-2.5-flash", id: "no-prefix" }).provider).toBe("gcp.gemini");
  });
});
