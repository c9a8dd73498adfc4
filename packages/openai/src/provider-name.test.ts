import { describe, expect, it } from "vitest";
import { openai, openaiResponses } from "./index.js";

describe("gen_ai.provider.name", () => {
  it("both OpenAI models say they talk to openai, whatever their id", () => {
    expect(openai({ model: "gpt-4o-mini", id: "no-prefix" }).provider).toBe("openai");
    expect(openaiResponses({ model: "gpt-5-mini", id: "mine" }).provider).toBe("openai");
  });
});
