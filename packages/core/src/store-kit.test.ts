import { describe, expect, it } from "vitest";
import {
  canonicalJson,
  checkId,
  checkLease,
  checkLeaseMs,
  checkOwner,
  checkStoreIds,
  guardStoreIds,
  InvalidIdError,
  MAX_STORE_ID_CHARS,
  pruneCutoff,
  storedError,
} from "./store-kit.js";

describe("store kit", () => {
  it("canonicalJson ignores key order at every depth, not array order", () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: null } })).toBe(
      canonicalJson({ a: { c: null, d: [2, { y: 2, z: 1 }] }, b: 1 }),
    );
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  it("pruneCutoff takes a Date or an age, and refuses anything else naming the caller", () => {
    const at = new Date("2026-01-01T00:00:00Z");
    expect(pruneCutoff({ olderThan: at }, "s.prune()")).toBe(at.getTime());
    const now = Date.now();
    expect(pruneCutoff({ olderThan: 1000 }, "s.prune()")).toBeGreaterThanOrEqual(now - 1000);
    for (const bad of [-1, Number.NaN, new Date("nope"), "1d", undefined]) {
      expect(() => pruneCutoff({ olderThan: bad } as never, "s.prune()")).toThrow(
        "s.prune(): olderThan must be a valid Date or an age of 0 or more ms",
      );
    }
  });

  it("keeps only code, message and time of an error, and checks leases, owners and durations", () => {
    const kept = storedError(
      { code: "x", message: "m", at: "t", stack: "secret" } as never,
      "s.release()",
    );
    expect(kept).toEqual({ code: "x", message: "m", at: "t" });
    expect(() => storedError({ code: 1 } as never, "s.release()")).toThrow(TypeError);
    expect(() => checkLease({ runId: "r", owner: "o", token: 1.5 } as never, "s.step()")).toThrow(
      "s.step(): lease must be",
    );
    expect(() => checkOwner("", "s.claim()")).toThrow("owner must be a non-empty string");
    expect(() => checkLeaseMs(-5, "s.claim()")).toThrow("leaseMs must be zero or more");
    expect(() => checkLease({ runId: "r", owner: "o", token: 2, expiresAt: 0 }, "x")).not.toThrow();
  });
});

describe("ids every store keeps exactly", () => {
  it("caps ids at MAX_STORE_ID_CHARS: 1024, far above nested sub-agent run ids", () => {
    expect(MAX_STORE_ID_CHARS).toBe(1024);
    // A run id three sub-agents deep (parent run id, then "/" and a provider's call id each level).
    const nested = [
      "run_0123456789abcdef0123456789abcdef",
      ...Array(3).fill("toolu_01ABCDEFGHIJKLMNOPQRSTUVWX"),
    ].join("/");
    expect(() => checkId(nested, "runId")).not.toThrow();
    // Refused wherever a checkpoint carries it: the run id and every pending request id.
    const long = "q".repeat(MAX_STORE_ID_CHARS + 1);
    const checkpoint = {
      runId: "run_1",
      pending: [{ request: { id: "ok" } }, { request: { id: long } }],
    };
    expect(() => checkStoreIds("halt", [checkpoint])).toThrow(InvalidIdError);
    expect(() => checkStoreIds("halt", [{ runId: long, pending: [] }])).toThrow(
      `checkpoint.runId cannot be stored: it is ${MAX_STORE_ID_CHARS + 1} characters long`,
    );
  });

  it("checkId refuses NUL and unpaired surrogates, naming the field and the index, not the id", () => {
    for (const [id, problem] of [
      ["a\u0000b", "NUL character (U+0000) at index 1"],
      ["a\uD800", "unpaired UTF-16 surrogate at index 1"],
      ["\uDC00a", "unpaired UTF-16 surrogate at index 0"],
      ["\uDE00\uD83D", "unpaired UTF-16 surrogate at index 0"],
      [
        "x".repeat(MAX_STORE_ID_CHARS + 1),
        `${MAX_STORE_ID_CHARS + 1} characters long, over the limit of ${MAX_STORE_ID_CHARS}`,
      ],
    ] as const) {
      let thrown: unknown;
      try {
        checkId(id, "runId");
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(InvalidIdError);
      expect(thrown).toMatchObject({ code: "invalid_id", field: "runId" });
      expect((thrown as Error).message).toContain(problem);
      expect((thrown as Error).message).not.toContain(id);
    }
    // Paired surrogates, control characters, U+FFFD and non-strings (left to type checks) pass.
    for (const ok of [
      "\u{1F600}",
      "tab\there\n",
      "\uFFFD",
      "",
      "x".repeat(MAX_STORE_ID_CHARS),
      42,
      null,
    ]) {
      expect(() => checkId(ok, "runId")).not.toThrow();
    }
  });

  it("checkStoreIds finds the ids in each method's arguments", () => {
    const bad = "x\u0000";
    const lease = { runId: "run_1", owner: bad, token: 1, expiresAt: 0 };
    const field = (method: string, args: unknown[]) => {
      try {
        checkStoreIds(method, args);
      } catch (error) {
        return (error as InvalidIdError).field;
      }
      return undefined;
    };
    expect(field("halt", [{ runId: "r", pending: [{ request: { id: bad } }] }])).toBe(
      "checkpoint.pending[0].request.id",
    );
    expect(field("step", [lease, { runId: "run_1" }])).toBe("lease.owner");
    expect(field("journal", [{ ...lease, owner: "w" }, { answered: bad }])).toBe("entry.answered");
    expect(field("claim", [{ owner: "w", agent: bad }])).toBe("agent");
    expect(field("list", [{ sessionId: bad }])).toBe("sessionId");
    expect(field("deleteConversation", [bad])).toBe("sessionId");
    expect(field("subscribe", [bad])).toBeUndefined();
  });

  it("guardStoreIds throws for a sync store and rejects for an async one, in place", async () => {
    const sync = { getRun: (id: string) => id, other: 1 };
    expect(guardStoreIds(sync, "sync")).toBe(sync);
    expect(sync.getRun("ok")).toBe("ok");
    expect(() => sync.getRun("\uD800")).toThrow(InvalidIdError);
    const async = guardStoreIds({ getRun: async (id: string) => id }, "async");
    const pending = async.getRun("\uD800");
    expect(pending).toBeInstanceOf(Promise);
    await expect(pending).rejects.toMatchObject({ code: "invalid_id" });
  });
});
