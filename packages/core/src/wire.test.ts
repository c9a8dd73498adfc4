import { describe, expect, it } from "vitest";
import { WireFormatError } from "./errors.js";
import {
  type Answer,
  AnswerSchema,
  parseAnswer,
  parseRequest,
  type Request,
  RequestSchema,
} from "./wire.js";

function rejection(fn: () => unknown): WireFormatError {
  try {
    fn();
  } catch (thrown) {
    expect(thrown).toBeInstanceOf(WireFormatError);
    return thrown as WireFormatError;
  }
  throw new Error("expected a WireFormatError");
}

describe("Request wire data", () => {
  it("round-trips a full Request with keys in the fixed order", () => {
    const request: Request = {
      id: "pnd_1",
      kind: "input",
      prompt: "Which environment?",
      url: "https://example.test/form",
      data: { schema: { type: "object" } },
      expiresAt: "2026-12-02T15:00:00.000Z",
    };
    const json = JSON.stringify(request);
    expect(Object.keys(JSON.parse(json))).toEqual([
      "id",
      "kind",
      "prompt",
      "url",
      "data",
      "expiresAt",
    ]);
    const parsed = parseRequest(json);
    expect(parsed).toEqual(request);
    expect(JSON.stringify(parsed)).toBe(json);
  });

  it("leaves absent optionals out, and reads null optionals (other ports) as absent", () => {
    const parsed = parseRequest({
      url: null,
      prompt: "Go?",
      kind: "approval",
      id: "r",
      data: null,
    });
    expect(JSON.stringify(parsed)).toBe('{"id":"r","kind":"approval","prompt":"Go?"}');
  });

  it("drops unknown keys", () => {
    expect(parseRequest({ id: "r", kind: "question", prompt: "?", color: "red" })).toEqual({
      id: "r",
      kind: "question",
      prompt: "?",
    });
  });

  it("rejects each malformed field by name", () => {
    expect(rejection(() => parseRequest({ kind: "input", prompt: "p" })).message).toBe(
      'invalid Request: "id" is required',
    );
    expect(rejection(() => parseRequest({ id: "r", kind: 3, prompt: "p" })).field).toBe("kind");
    expect(rejection(() => parseRequest({ id: "r", kind: "input" })).message).toBe(
      'invalid Request: "prompt" is required',
    );
    expect(
      rejection(() => parseRequest({ id: "r", kind: "input", prompt: "p", data: [1] })).message,
    ).toBe('invalid Request: "data" must be an object');
    expect(
      rejection(() => parseRequest({ id: "r", kind: "input", prompt: "p", expiresAt: "soon" }))
        .field,
    ).toBe("expiresAt");
    expect(rejection(() => parseRequest("{not json")).message).toMatch(
      /^invalid Request: not valid JSON/,
    );
    expect(rejection(() => parseRequest([])).message).toBe(
      "invalid Request: expected an object, got array",
    );
  });
});

describe("Answer wire data", () => {
  it("round-trips ok and declined answers with keys in the fixed order", () => {
    const yes: Answer = { id: "pnd_1", ok: true, data: { env: "staging" } };
    const no: Answer = { id: "pnd_1", ok: false, reason: "declined" };
    for (const answer of [yes, no]) {
      const json = JSON.stringify(answer);
      const parsed = parseAnswer(json);
      expect(parsed).toEqual(answer);
      expect(JSON.stringify(parsed)).toBe(json);
    }
    expect(
      JSON.stringify(parseAnswer({ reason: "expired", data: { a: 1 }, ok: false, id: "x" })),
    ).toBe('{"id":"x","ok":false,"data":{"a":1},"reason":"expired"}');
  });

  it("drops unknown keys instead of failing", () => {
    expect(parseAnswer({ id: "a", ok: true, by: "alice", at: 3 })).toEqual({ id: "a", ok: true });
  });

  it("rejects a non-boolean ok, naming the field", () => {
    const err = rejection(() => parseAnswer({ id: "a", ok: "yes" }));
    expect(err.field).toBe("ok");
    expect(err.message).toBe('invalid Answer: "ok" must be a boolean');
  });

  it("rejects a missing id, naming the field", () => {
    const err = rejection(() => parseAnswer({ ok: true }));
    expect(err.field).toBe("id");
    expect(err.message).toBe('invalid Answer: "id" is required');
  });

  it("rejects a reason outside the three values, naming the field", () => {
    const err = rejection(() => parseAnswer({ id: "a", ok: false, reason: "bored" }));
    expect(err.field).toBe("reason");
    expect(err.message).toBe(
      'invalid Answer: "reason" must be one of "declined", "cancelled", "expired"',
    );
  });

  it("rejects a reason on an ok answer", () => {
    expect(rejection(() => parseAnswer({ id: "a", ok: true, reason: "declined" })).message).toBe(
      'invalid Answer: "reason" is only allowed when "ok" is false',
    );
  });

  it("rejects non-object data, naming the field", () => {
    for (const data of ["staging", 3, [1, 2], true]) {
      const err = rejection(() => parseAnswer({ id: "a", ok: true, data }));
      expect(err.field).toBe("data");
      expect(err.message).toBe('invalid Answer: "data" must be an object');
    }
  });

  it("lists every problem at once", () => {
    const err = rejection(() => parseAnswer({ ok: 1, data: "x" }));
    expect(err.issues).toEqual([
      '"id" is required',
      '"ok" must be a boolean',
      '"data" must be an object',
    ]);
  });
});

describe("RequestSchema and AnswerSchema", () => {
  it("are Standard Schemas that return the canonical value or issues with paths", async () => {
    const std = AnswerSchema["~standard"];
    expect(std).toMatchObject({ version: 1, vendor: "toolnexus" });
    expect(await std.validate({ ok: false, extra: 1, reason: "declined", id: "a" })).toEqual({
      value: { id: "a", ok: false, reason: "declined" },
    });
    expect(await std.validate({ id: "a", ok: "yes" })).toEqual({
      issues: [{ message: '"ok" must be a boolean', path: ["ok"] }],
    });
    expect(await RequestSchema["~standard"].validate("{}")).toEqual({
      issues: [{ message: "expected an object, got string" }],
    });
  });

  it("parse and safeParse like zod's, with WireFormatError as the error", () => {
    expect(RequestSchema.parse({ id: "r", kind: "input", prompt: "p", url: null })).toEqual({
      id: "r",
      kind: "input",
      prompt: "p",
    });
    expect(rejection(() => RequestSchema.parse({ id: "r" })).issues).toEqual([
      '"kind" is required',
      '"prompt" is required',
    ]);
    const failed = AnswerSchema.safeParse({ id: "a", ok: true, reason: "declined" });
    expect(failed.success).toBe(false);
    if (!failed.success) expect(failed.error.field).toBe("reason");
    expect(AnswerSchema.safeParse({ id: "a", ok: true })).toEqual({
      success: true,
      data: { id: "a", ok: true },
    });
  });

  it("report a non-string field once, and a refusal reason on an ok answer with other problems", () => {
    expect(rejection(() => parseRequest({ id: [], kind: "k", prompt: "p" })).issues).toEqual([
      '"id" must be a string',
    ]);
    expect(rejection(() => parseAnswer({ ok: true, reason: "expired" })).issues).toEqual([
      '"id" is required',
      '"reason" is only allowed when "ok" is false',
    ]);
  });
});
