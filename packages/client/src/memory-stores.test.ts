import {
  AlreadyResumedError,
  CHECKPOINT_VERSION,
  type Checkpoint,
  CheckpointError,
  emptyUsage,
  SuspensionNotFoundError,
} from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import { memoryConversationStore, memorySuspensionStore } from "./memory-stores.js";

function checkpoint(id: string, requestIds: string[], sessionId = "s"): Checkpoint {
  return {
    version: CHECKPOINT_VERSION,
    id,
    runId: "run_1",
    sessionId,
    createdAt: new Date().toISOString(),
    messages: [],
    pending: requestIds.map((requestId, i) => ({
      request: { id: requestId, kind: i === 0 ? "input" : "approval", prompt: `p${i}` },
      callId: `c${i}`,
      tool: "t",
      args: {},
      fingerprint: "f",
      approval: false,
      slot: i,
    })),
    turns: 1,
    usage: emptyUsage(),
  };
}

describe("memorySuspensionStore", () => {
  it("claims exactly once and tells unknown from already resumed", () => {
    const store = memorySuspensionStore();
    store.save(checkpoint("ckp_1", ["r1", "r2"]));
    expect(store.get("r2")?.id).toBe("ckp_1");
    expect(store.claim("r1").id).toBe("ckp_1");
    expect(() => store.claim("r1")).toThrow(AlreadyResumedError);
    expect(() => store.claim("r2")).toThrow(AlreadyResumedError);
    expect(() => store.claim("zzz")).toThrow(SuspensionNotFoundError);
    expect(store.get("r1")).toBeUndefined();
  });

  it("hands out copies, never the stored objects", () => {
    const store = memorySuspensionStore();
    const original = checkpoint("ckp_1", ["r1"]);
    store.save(original);
    original.turns = 99;
    const copy = store.get("r1")!;
    copy.turns = 42;
    expect(store.claim("r1").turns).toBe(1);
  });

  it("uses the newest pending checkpoint for a re-raised request, and re-saving is idempotent", () => {
    const store = memorySuspensionStore();
    store.save(checkpoint("ckp_1", ["r1", "r2"]));
    store.claim("r1");
    store.save(checkpoint("ckp_2", ["r2"]));
    store.save(checkpoint("ckp_1", ["r1", "r2"])); // cannot revive a claimed checkpoint
    expect(store.get("r2")?.id).toBe("ckp_2");
    expect(store.list({ state: "resumed" }).map((s) => s.checkpointId)).toEqual(["ckp_1", "ckp_1"]);
    expect(store.list({ state: "pending" }).map((s) => s.request.id)).toEqual(["r2"]);
  });

  it("filters the list by state, session and kind", () => {
    const store = memorySuspensionStore();
    store.save(checkpoint("ckp_1", ["r1", "r2"], "a"));
    store.save(checkpoint("ckp_2", ["r3"], "b"));
    expect(store.list({ sessionId: "a" }).map((s) => s.request.id)).toEqual(["r1", "r2"]);
    expect(store.list({ kind: "approval" }).map((s) => s.request.id)).toEqual(["r2"]);
    expect(store.list().map((s) => s.request.id)).toEqual(["r3", "r1", "r2"]);
  });

  it("refuses to save something that is not a checkpoint", () => {
    expect(() => memorySuspensionStore().save({ version: 7 } as unknown as Checkpoint)).toThrow(
      CheckpointError,
    );
  });
});

describe("memoryConversationStore", () => {
  it("stores transcripts by session as copies", () => {
    const store = memoryConversationStore();
    const messages = [{ role: "user" as const, content: "hi" }];
    store.save("s", messages);
    messages.push({ role: "user", content: "changed" });
    expect(store.load("s")).toEqual([{ role: "user", content: "hi" }]);
    expect(store.load("other")).toBeUndefined();
  });
});
