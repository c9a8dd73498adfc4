import { describe, expect, it } from "vitest";
import { toAnswer, toElicitation, unaskable } from "./elicitation.js";

const input = {
  id: "r1",
  kind: "input",
  prompt: "Which env?",
  data: { schema: { type: "object", properties: { env: { type: "string" } } } },
};

describe("a Request as an elicitation", () => {
  it("maps each kind as the contract says", () => {
    expect(toElicitation(input)).toEqual({
      mode: "form",
      message: "Which env?",
      requestedSchema: input.data.schema,
    });
    expect(
      toElicitation({
        id: "a",
        kind: "authorization",
        prompt: "Sign in",
        url: "https://x.example/a",
      }),
    ).toEqual({
      mode: "url",
      message: "Sign in",
      url: "https://x.example/a",
    });
    expect(toElicitation({ id: "b", kind: "approval", prompt: "Deploy?" })).toEqual({
      mode: "form",
      message: "Deploy?",
      requestedSchema: { type: "object", properties: {} },
    });
    // A schema a form cannot show (nested objects) becomes one text field.
    const nested = {
      id: "c",
      kind: "question",
      prompt: "Tell me",
      data: { schema: { type: "object", properties: { a: { type: "object" } } } },
    };
    expect(toElicitation(nested)).toMatchObject({
      mode: "form",
      requestedSchema: { properties: { answer: { type: "string" } }, required: ["answer"] },
    });
  });

  it("maps the client's reply to the Answer", () => {
    expect(toAnswer(input, { kind: "elicit", action: "accept", content: { env: "prod" } })).toEqual(
      {
        id: "r1",
        ok: true,
        data: { env: "prod" },
      },
    );
    expect(toAnswer(input, { kind: "elicit", action: "decline" })).toEqual({
      id: "r1",
      ok: false,
      reason: "declined",
    });
    expect(toAnswer(input, { kind: "elicit", action: "cancel" })).toEqual({
      id: "r1",
      ok: false,
      reason: "cancelled",
    });
    expect(toAnswer(input, { kind: "missing" })).toBeUndefined();
  });

  it("names what was needed for a client that cannot ask", () => {
    expect(unaskable(input, { elicitation: {} })).toBeUndefined();
    expect(unaskable(input, {})).toContain("needs input: Which env?");
    const url = { id: "u", kind: "authorization", prompt: "Sign in", url: "https://x.example/a" };
    expect(unaskable(url, { elicitation: { form: {} } })).toContain("url-mode elicitation");
    expect(unaskable(url, { elicitation: { url: {} } })).toBeUndefined();
  });
});
