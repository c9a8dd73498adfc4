import { describe, expect, it } from "vitest";
import {
  checkDurableAnswerSize,
  expiredAnswer,
  MAX_DURABLE_ANSWER_CHARS,
  modelStepKey,
  toolStepKey,
} from "./durability.js";

describe("durability seam helpers", () => {
  it("answers an expired request, given the request or the awaited request", () => {
    const request = { id: "pnd_1", kind: "question", prompt: "Which?" };
    expect(expiredAnswer(request)).toEqual({ id: "pnd_1", ok: false, reason: "expired" });
    expect(expiredAnswer({ request, deadline: "2026-01-01T00:00:00.000Z" })).toEqual({
      id: "pnd_1",
      ok: false,
      reason: "expired",
    });
  });

  it("names steps the same way every time, distinct per turn, call and answer", () => {
    expect(modelStepKey(1)).toBe("model/1");
    expect(modelStepKey(2)).not.toBe(modelStepKey(1));
    expect(toolStepKey("call_a")).toBe("tool/call_a");
    expect(toolStepKey("call_a", "pnd_1")).toBe("tool/call_a/pnd_1");
    expect(toolStepKey("call_a", "pnd_2")).not.toBe(toolStepKey("call_a", "pnd_1"));
  });
});

describe("checkDurableAnswerSize", () => {
  const refused = (answer: unknown) => {
    try {
      checkDurableAnswerSize(answer as never);
      return "kept";
    } catch (thrown) {
      return (thrown as { code?: string }).code;
    }
  };

  it("keeps answers whose JSON is at most the cap, with or without data", () => {
    expect(refused({ id: "pnd_1", ok: true })).toBe("kept");
    expect(refused({ id: "pnd_1", ok: false, reason: "declined" })).toBe("kept");
    const room =
      MAX_DURABLE_ANSWER_CHARS - JSON.stringify({ id: "a", ok: true, data: { s: "" } }).length;
    expect(refused({ id: "a", ok: true, data: { s: "x".repeat(room) } })).toBe("kept");
  });

  it("refuses an answer one character past the cap, by its data or by its id alone", () => {
    const room =
      MAX_DURABLE_ANSWER_CHARS - JSON.stringify({ id: "a", ok: true, data: { s: "" } }).length;
    expect(refused({ id: "a", ok: true, data: { s: "x".repeat(room + 1) } })).toBe(
      "answer_too_large",
    );
    // No data, but an id whose characters JSON writes six wide (\u0001): measured, not assumed.
    expect(refused({ id: "\u0001".repeat(44_000), ok: true })).toBe("answer_too_large");
    expect(refused({ id: "x".repeat(MAX_DURABLE_ANSWER_CHARS), ok: true })).toBe(
      "answer_too_large",
    );
  });

  it("measures the JSON text a caller passes, the same as the answer's own", () => {
    const answer = { id: "a", ok: true, data: { s: "x".repeat(MAX_DURABLE_ANSWER_CHARS) } };
    expect(() => checkDurableAnswerSize(answer, JSON.stringify(answer))).toThrow(
      /the answer to a is \d+ characters of JSON/,
    );
    const small = { id: "a", ok: true, data: { s: "x" } };
    expect(() => checkDurableAnswerSize(small, JSON.stringify(small))).not.toThrow();
  });

  it("quotes a long answer id by its start only: the message has a cap too", () => {
    const answer = { id: "p".repeat(10_000_000), ok: true };
    let message = "";
    try {
      checkDurableAnswerSize(answer);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(
      /^the answer to "p{40}"… \(10000000 characters\) is 10000019 characters/,
    );
    expect(message.length).toBeLessThan(200);
  });

  it("measures an answer with a key it does not know by its JSON text", () => {
    expect(refused({ id: "a", ok: true, extra: "x".repeat(MAX_DURABLE_ANSWER_CHARS) })).toBe(
      "answer_too_large",
    );
  });
});
