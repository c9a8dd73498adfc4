import type { RequestInfo } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import { answerOfResume, interruptOf, MAX_DECLINE_REASON_CHARS } from "./interrupts.js";

const approval: RequestInfo = {
  request: { id: "pnd_a", kind: "approval", prompt: "Allow deploy?" },
  runId: "run",
  state: "waiting",
};
const input: RequestInfo = {
  request: {
    id: "pnd_i",
    kind: "input",
    prompt: "Where to?",
    data: {
      schema: { type: "object", properties: { env: { enum: ["staging"] } }, required: ["env"] },
    },
  },
  runId: "run",
  state: "waiting",
};

describe("interruptOf", () => {
  it("carries the request's schema as the response schema and its own fields in metadata", () => {
    expect(interruptOf(input.request)).toEqual({
      id: "pnd_i",
      reason: "input",
      message: "Where to?",
      responseSchema: input.request.data?.schema,
      metadata: { toolnexus: { kind: "input", data: input.request.data } },
    });
    const expiring = interruptOf({
      id: "q",
      kind: "question",
      prompt: "?",
      expiresAt: "2030-01-01T00:00:00Z",
    });
    expect(expiring.expiresAt).toBe("2030-01-01T00:00:00Z");
    expect(expiring.responseSchema).toBeUndefined();
  });
});

describe("answerOfResume", () => {
  it("turns approvals, declines and cancels into answers", () => {
    expect(
      answerOfResume(
        { interruptId: "pnd_a", status: "resolved", payload: { approved: true } },
        approval,
        "r",
      ),
    ).toEqual({
      id: "pnd_a",
      ok: true,
    });
    expect(
      answerOfResume(
        { interruptId: "pnd_a", status: "resolved", payload: { approved: false } },
        approval,
        "r",
      ),
    ).toEqual({ id: "pnd_a", ok: false, reason: "declined" });
    expect(answerOfResume({ interruptId: "pnd_i", status: "cancelled" }, input, "r")).toEqual({
      id: "pnd_i",
      ok: false,
      reason: "declined",
    });
    expect(
      answerOfResume(
        { interruptId: "pnd_i", status: "resolved", payload: { env: "staging" } },
        input,
        "r",
      ),
    ).toEqual({ id: "pnd_i", ok: true, data: { env: "staging" } });
  });

  it("lists every problem of a payload that does not fit", () => {
    const problems = (entryPayload: unknown, info: RequestInfo) => {
      try {
        answerOfResume(
          { interruptId: info.request.id, status: "resolved", payload: entryPayload },
          info,
          "resume[2]",
        );
      } catch (error) {
        return (error as { status: number; issues: string[] }).issues;
      }
      throw new Error("expected a refusal");
    };
    expect(problems({ approved: true, reason: "x", extra: 1 }, approval)).toEqual([
      "resume[2].payload.extra: unknown field",
      "resume[2].payload.reason: only when approved is false",
    ]);
    expect(
      problems({ approved: false, reason: "x".repeat(MAX_DECLINE_REASON_CHARS + 1) }, approval),
    ).toEqual([
      `resume[2].payload.reason: a string of at most ${MAX_DECLINE_REASON_CHARS} characters`,
    ]);
    expect(problems("yes", approval)).toEqual([
      "resume[2].payload: an object { approved, reason? }",
    ]);
    expect(problems([1], input)).toEqual(["resume[2].payload: an object (the answer's data)"]);
    expect(problems({ env: "moon" }, input)).toEqual([
      'resume[2].payload.env: expected one of "staging"',
    ]);
  });
});
