import { describe, expect, it } from "vitest";
import { anthropic } from "./index.js";

describe("gen_ai.provider.name", () => {
  it("the model says it talks to anthropic, whatever its id", () => {
    expect(anthropic({ model: "claude-sonnet-4-5", id: "no-prefix" }).provider).toBe("anthropic");
  });
});
