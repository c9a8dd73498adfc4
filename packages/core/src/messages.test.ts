import { describe, expect, it } from "vitest";
import { CheckpointError } from "./errors.js";
import { addUsage, emptyUsage, toolCall } from "./messages.js";
import { assertCheckpoint, CHECKPOINT_VERSION } from "./stores.js";

describe("toolCall()", () => {
  it("parses a JSON object and keeps the raw text", () => {
    expect(toolCall("c1", "add", '{"a":2,"b":3}')).toEqual({
      id: "c1",
      name: "add",
      args: { a: 2, b: 3 },
      rawArgs: '{"a":2,"b":3}',
    });
  });

  it("reads empty arguments as {}", () => {
    expect(toolCall("c1", "now", "").args).toEqual({});
  });

  it("flags text that is not a JSON object instead of throwing", () => {
    expect(toolCall("c1", "add", "{a:").argsError).toMatch(/^arguments are not valid JSON/);
    expect(toolCall("c1", "add", "[1]").argsError).toBe("arguments must be a JSON object");
  });
});

describe("usage", () => {
  it("adds up", () => {
    const one = { promptTokens: 3, completionTokens: 2, totalTokens: 5 };
    expect(addUsage(addUsage(emptyUsage(), one), one)).toEqual({
      promptTokens: 6,
      completionTokens: 4,
      totalTokens: 10,
    });
    expect(addUsage(one, undefined)).toBe(one);
  });
});

describe("assertCheckpoint()", () => {
  const valid = {
    version: CHECKPOINT_VERSION,
    id: "ckp_1",
    runId: "run_1",
    createdAt: "2026-12-02T00:00:00.000Z",
    messages: [],
    pending: [
      {
        request: { id: "r1", kind: "input", prompt: "?" },
        callId: "c1",
        tool: "deploy",
        args: {},
        fingerprint: "f",
        approval: false,
        slot: 2,
      },
    ],
    turns: 1,
    usage: emptyUsage(),
  };

  it("accepts a checkpoint of this version", () => {
    expect(() => assertCheckpoint(structuredClone(valid), "r1")).not.toThrow();
  });

  it("names the request and the problem for an old version or a corrupted value", () => {
    expect(() => assertCheckpoint({ ...valid, version: 0 }, "r1")).toThrow(
      'checkpoint for request "r1" cannot be resumed: it was written with checkpoint version 0, this release reads version 1',
    );
    expect(() => assertCheckpoint({ ...valid, messages: "x" }, "r1")).toThrow(CheckpointError);
    expect(() => assertCheckpoint({ ...valid, pending: [{}] }, "r1")).toThrow(
      'checkpoint for request "r1" cannot be resumed: a pending call is malformed',
    );
    expect(() => assertCheckpoint("garbage")).toThrow("invalid checkpoint: it is not an object");
    expect(() => assertCheckpoint({ ...valid, createdAt: "yesterday" }, "r1")).toThrow(
      'checkpoint for request "r1" cannot be resumed: its createdAt is not an ISO 8601 time',
    );
    const noKind = structuredClone(valid) as { pending: { request: Record<string, unknown> }[] };
    delete noKind.pending[0]!.request.kind;
    expect(() => assertCheckpoint(noKind, "r1")).toThrow("a pending call is malformed");
  });
});
