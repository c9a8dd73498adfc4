import { describe, expect, it } from "vitest";
import { checkRunAgentInput, MAX_INPUT_MESSAGES, MAX_RESUME_ENTRIES, promptOf } from "./input.js";

const base = { threadId: "T", runId: "R", messages: [] };

describe("checkRunAgentInput", () => {
  it("takes a minimal input and fills tools and context as the AG-UI SDK does", () => {
    expect(checkRunAgentInput(base)).toEqual({ ...base, tools: [], context: [] });
  });

  it("bounds every list and refuses what is not an object", () => {
    const many = Array.from({ length: MAX_INPUT_MESSAGES + 1 }, (_, i) => ({
      id: `m${i}`,
      role: "user",
    }));
    const entries = Array.from({ length: MAX_RESUME_ENTRIES + 1 }, (_, i) => ({
      interruptId: `i${i}`,
      status: "cancelled",
    }));
    expect(() => checkRunAgentInput({ ...base, messages: many, resume: entries })).toThrow(
      expect.objectContaining({
        status: 400,
        issues: [
          `messages: at most ${MAX_INPUT_MESSAGES} items (got ${MAX_INPUT_MESSAGES + 1})`,
          `resume: at most ${MAX_RESUME_ENTRIES} items (got ${MAX_RESUME_ENTRIES + 1})`,
        ],
      }),
    );
    expect(() => checkRunAgentInput([base])).toThrow(
      expect.objectContaining({ code: "bad_request" }),
    );
    expect(() =>
      checkRunAgentInput({ ...base, messages: [null], tools: [{}], context: [{ value: 1 }] }),
    ).toThrow(
      expect.objectContaining({
        issues: [
          "messages[0]: must be an object",
          "tools[0].name: a non-empty string",
          "context[0].value: must be a string",
        ],
      }),
    );
  });
});

describe("promptOf", () => {
  it("is the last user message's text, from a string or from text parts", () => {
    expect(
      promptOf({
        messages: [
          { id: "1", role: "user", content: "first" },
          {
            id: "2",
            role: "user",
            content: [
              { type: "text", text: "Ship " },
              { type: "image", source: { type: "url", value: "https://x.example/a.png" } },
              { type: "text", text: "it" },
            ],
          },
          { id: "3", role: "assistant", content: "ok" },
        ],
      }),
    ).toBe("Ship it");
    expect(promptOf({ messages: [{ id: "1", role: "assistant", content: "hi" }] })).toBe("");
  });
});
