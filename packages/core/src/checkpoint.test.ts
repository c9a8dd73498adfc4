import { describe, expect, it } from "vitest";
import { assertCheckpoint, assertJournalEntry, CHECKPOINT_VERSION } from "./checkpoint.js";
import {
  AnswerConflictError,
  CheckpointError,
  LeaseLostError,
  RunNotFoundError,
  SuspensionNotFoundError,
} from "./errors.js";
import { emptyUsage } from "./messages.js";

// A halted turn: the assistant called `deploy`, whose placeholder tool message is at slot 2.
function valid() {
  return {
    version: CHECKPOINT_VERSION,
    runId: "run_1",
    createdAt: "2026-12-02T00:00:00.000Z",
    messages: [
      { role: "user", content: "deploy it" },
      {
        role: "assistant",
        id: "msg_1",
        content: "",
        toolCalls: [{ id: "c1", name: "deploy", args: {}, rawArgs: "{}" }],
      },
      { role: "tool", callId: "c1", name: "deploy", content: "May I deploy?", isError: false },
    ],
    pending: [
      {
        request: { id: "r1", kind: "approval", prompt: "May I deploy?" },
        callId: "c1",
        tool: "deploy",
        args: {},
        fingerprint: "f",
        approval: true,
        slot: 2,
      },
    ],
    turns: 1,
    usage: emptyUsage(),
  };
}

type Mutable = Record<string, unknown> & {
  messages: Record<string, unknown>[];
  pending: Record<string, unknown>[];
};

/** A valid checkpoint changed by `edit`. */
function broken(edit: (c: Mutable) => void): unknown {
  const c = structuredClone(valid()) as unknown as Mutable;
  edit(c);
  return c;
}

/** The CheckpointError message `assertCheckpoint` throws for `value`. */
function problem(value: unknown, requestId?: string): string {
  try {
    assertCheckpoint(value, requestId);
  } catch (error) {
    expect(error).toBeInstanceOf(CheckpointError);
    expect((error as CheckpointError).code).toBe("checkpoint_invalid");
    return (error as CheckpointError).message;
  }
  throw new Error("assertCheckpoint accepted the value");
}

describe("assertCheckpoint()", () => {
  it("accepts a checkpoint of this version, halted or not", () => {
    expect(() => assertCheckpoint(valid(), "r1")).not.toThrow();
    expect(() => assertCheckpoint(broken((c) => (c.pending = [])))).not.toThrow();
    expect(() =>
      assertCheckpoint({ ...valid(), leaseToken: 3, sessionId: "s", conversation: true }),
    ).not.toThrow();
  });

  it("names the request and the version for a version 1 (or other) checkpoint", () => {
    // Version 1 had an `id` per checkpoint; the stores migrate such rows, the loop refuses them.
    const v1 = { ...valid(), version: 1, id: "ckp_1" };
    expect(problem(v1, "r1")).toBe(
      'checkpoint for request "r1" cannot be resumed: it was written with checkpoint version 1, this release reads version 2',
    );
    expect(problem({ ...valid(), version: "2" })).toBe(
      'invalid checkpoint: it was written with checkpoint version "2", this release reads version 2',
    );
    expect(problem(broken((c) => delete c.version))).toContain("checkpoint version undefined");
  });

  it("refuses values that are not checkpoints", () => {
    expect(problem("garbage")).toBe("invalid checkpoint: it is not an object");
    expect(problem(null)).toBe("invalid checkpoint: it is not an object");
    expect(problem([valid()])).toBe("invalid checkpoint: it is not an object");
    expect(problem(broken((c) => (c.runId = "")))).toContain("its runId is missing");
    expect(
      problem(
        broken((c) => (c.createdAt = "yesterday")),
        "r1",
      ),
    ).toBe('checkpoint for request "r1" cannot be resumed: its createdAt is not an ISO 8601 time');
    expect(problem(broken((c) => (c.messages = "x" as never)))).toContain(
      "its transcript (messages) is missing",
    );
    expect(problem(broken((c) => (c.pending = {} as never)))).toContain(
      "its pending calls are missing",
    );
    expect(problem(broken((c) => delete c.usage))).toContain("its turn count or usage is missing");
    expect(problem(broken((c) => (c.turns = "1")))).toContain("its turn count or usage is missing");
    expect(problem(broken((c) => (c.leaseToken = 1.5)))).toContain(
      "its leaseToken is not a whole number",
    );
  });

  it("refuses a malformed transcript", () => {
    expect(problem(broken((c) => (c.messages[0] = null as never)))).toBe(
      "invalid checkpoint: its transcript is malformed: message 0 is not a system, user, assistant or tool message",
    );
    expect(problem(broken((c) => (c.messages[0]!.role = "robot")))).toContain(
      "message 0 is not a system, user, assistant or tool message",
    );
    expect(problem(broken((c) => delete c.messages[0]!.content))).toContain(
      "message 0 has no text content",
    );
    expect(problem(broken((c) => (c.messages[1]!.toolCalls = "deploy")))).toContain(
      "message 1 has toolCalls that is not a list",
    );
    expect(problem(broken((c) => (c.messages[1]!.toolCalls = [{ id: "c1" }])))).toContain(
      "message 1 has a malformed tool call",
    );
    expect(
      problem(
        broken((c) => (c.messages[1]!.toolCalls = [{ id: "c1", name: "deploy", args: "{}" }])),
      ),
    ).toContain("message 1 has a tool call without object args");
    expect(problem(broken((c) => (c.messages[2]!.parts = [{ type: "video" }])))).toContain(
      "message 2 has content parts that are malformed (part 0: has an unknown type: video)",
    );
    expect(problem(broken((c) => delete c.messages[2]!.callId))).toContain(
      "message 2 is a tool message without callId",
    );
  });

  it("refuses a malformed pending call", () => {
    expect(
      problem(
        broken((c) => (c.pending = [{}])),
        "r1",
      ),
    ).toBe('checkpoint for request "r1" cannot be resumed: a pending call is malformed');
    expect(problem(broken((c) => (c.pending[0] = null as never)))).toContain(
      "a pending call is malformed",
    );
    for (const field of ["callId", "tool", "args", "fingerprint", "request"]) {
      expect(problem(broken((c) => delete c.pending[0]![field]))).toContain(
        "a pending call is malformed",
      );
    }
    for (const field of ["id", "kind", "prompt"]) {
      const noField = broken(
        (c) => delete (c.pending[0]!.request as Record<string, unknown>)[field],
      );
      expect(problem(noField)).toContain("a pending call is malformed");
    }
  });

  it("a pending call's schema fingerprint is optional (older checkpoints), else a short string", () => {
    const withSchema = broken((c) => (c.pending[0]!.schema = "0123456789abcdef"));
    expect(() => assertCheckpoint(withSchema)).not.toThrow();
    expect(problem(broken((c) => (c.pending[0]!.schema = 42)))).toContain(
      "pending call c1 has a schema fingerprint that is not a short string",
    );
    expect(problem(broken((c) => (c.pending[0]!.schema = "f".repeat(65))))).toContain(
      "schema fingerprint that is not a short string",
    );
  });

  it("refuses a slot out of range, shared, or not at that call's tool message", () => {
    for (const slot of [999, -1, 3, 1.5, "2", undefined]) {
      expect(problem(broken((c) => (c.pending[0]!.slot = slot)))).toContain(
        `pending call c1 points at slot ${String(slot)}, which is not a message of its own`,
      );
    }
    // In range but not a tool message: the user's message, the assistant's turn.
    expect(problem(broken((c) => (c.pending[0]!.slot = 0)))).toBe(
      "invalid checkpoint: pending call c1 points at slot 0, which is not its tool message",
    );
    expect(problem(broken((c) => (c.pending[0]!.slot = 1)))).toContain(
      "points at slot 1, which is not its tool message",
    );
    // A tool message, but another call's.
    expect(problem(broken((c) => (c.messages[2]!.callId = "c2")))).toContain(
      "pending call c1 points at slot 2, which is not its tool message",
    );
    // Two pending calls cannot share one placeholder.
    const twice = broken((c) => c.pending.push(structuredClone(c.pending[0]!)));
    expect(problem(twice)).toContain("points at slot 2, which is not a message of its own");
  });

  it("tells many pending calls' slots apart too, and refuses two that share one", () => {
    // Forty calls, each with its placeholder: past sixteen the slots are kept in a Set.
    const many = (shared: boolean) =>
      broken((c) => {
        const calls = Array.from({ length: 40 }, (_, i) => ({
          id: `c${i}`,
          name: "deploy",
          args: {},
          rawArgs: "{}",
        }));
        (c.messages[1] as { toolCalls: unknown[] }).toolCalls = calls;
        c.messages.length = 2;
        c.pending.length = 0;
        for (let i = 0; i < 40; i++) {
          c.messages.push({
            role: "tool",
            callId: `c${i}`,
            name: "deploy",
            content: "?",
            isError: true,
          });
          const request = { id: `r${i}`, kind: "approval", prompt: "?" };
          c.pending.push({
            request,
            callId: `c${i}`,
            tool: "deploy",
            args: {},
            fingerprint: "f",
            slot: 2 + i,
          });
        }
        if (shared)
          c.pending.push({
            ...c.pending[39]!,
            request: { id: "r40", kind: "approval", prompt: "?" },
          });
      });
    expect(() => assertCheckpoint(many(false))).not.toThrow();
    expect(problem(many(true))).toContain(
      "pending call c39 points at slot 41, which is not a message of its own",
    );
  });

  it("checks every createdAt, also one that comes after a valid one", () => {
    expect(() => assertCheckpoint(valid())).not.toThrow();
    expect(problem(broken((c) => (c.createdAt = "not a time")))).toContain(
      "its createdAt is not an ISO 8601 time",
    );
    expect(() => assertCheckpoint(valid())).not.toThrow();
  });
});

describe("assertJournalEntry()", () => {
  const entry = () => ({
    callId: "c1",
    message: { role: "tool", callId: "c1", name: "deploy", content: "done", isError: false },
    record: {
      id: "c1",
      name: "deploy",
      args: {},
      result: { output: "done", isError: false },
      status: "ok",
      timedOut: false,
      durationMs: 3,
    },
    answered: "r1",
  });

  it("accepts a journal entry", () => {
    expect(() => assertJournalEntry(entry(), "run_1")).not.toThrow();
  });

  it("refuses a malformed entry, naming the run", () => {
    const refused = (value: unknown) => () => assertJournalEntry(value, "run_1");
    const message = "invalid checkpoint: a journal entry of run run_1 is malformed";
    expect(refused(null)).toThrow(CheckpointError);
    expect(refused(null)).toThrow(message);
    expect(refused("entry")).toThrow(message);
    expect(refused({ ...entry(), callId: 1 })).toThrow(message);
    expect(refused({ ...entry(), message: null })).toThrow(message);
    expect(refused({ ...entry(), message: { ...entry().message, role: "user" } })).toThrow(message);
    expect(refused({ ...entry(), record: undefined })).toThrow(message);
    expect(() => assertJournalEntry({})).toThrow("a journal entry of run ? is malformed");
  });
});

describe("error messages with a huge id", () => {
  it("stay short and keep the full id on the error", () => {
    const id = `r_${"x".repeat(2 * 1024 * 1024)}`;
    const errors = [
      new SuspensionNotFoundError(id),
      new SuspensionNotFoundError(id, "it was pruned"),
      new AnswerConflictError(id, "answered"),
      new AnswerConflictError(id, "expired", "2026-12-02T00:00:00.000Z"),
      new LeaseLostError(id),
      new LeaseLostError(id, "the run is done"),
      new RunNotFoundError(id),
      new CheckpointError(id, "it is corrupt"),
    ];
    for (const error of errors) {
      expect(error.message.length).toBeLessThan(400);
      expect(error.message).toContain(`(${id.length} chars)`);
    }
    expect(errors[0]).toMatchObject({ requestId: id, code: "suspension_not_found" });
    expect(errors[3]).toMatchObject({ requestId: id, reason: "expired" });
    expect(errors[4]).toMatchObject({ runId: id, code: "lease_lost" });
  });
});

describe("assertCheckpoint and provider data", () => {
  it("keeps an assistant turn's providerData and the last stop reason through JSON", () => {
    const checkpoint = valid();
    (checkpoint.messages[1] as Record<string, unknown>).providerData = {
      anthropic: { blocks: [{ type: "thinking", thinking: "hm", signature: "c2ln" }] },
    };
    const stored: unknown = JSON.parse(
      JSON.stringify({ ...checkpoint, stopReason: "tool_calls", finishReason: "tool_use" }),
    );
    assertCheckpoint(stored);
    expect(stored.messages[1]).toMatchObject({
      providerData: { anthropic: { blocks: [{ signature: "c2ln" }] } },
    });
    expect(stored.stopReason).toBe("tool_calls");
  });

  it("refuses providerData that is not an object, and a stop reason that is not a string", () => {
    const bad = valid();
    (bad.messages[1] as Record<string, unknown>).providerData = "thinking";
    expect(() => assertCheckpoint(bad)).toThrow(/providerData that is not an object/);
    expect(() => assertCheckpoint({ ...valid(), stopReason: 3 })).toThrow(/stopReason/);
  });
});
