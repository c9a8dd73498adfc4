import { createClient } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import { type ModelRequest, pending } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type SqliteStore, sqliteStore } from "../src/store.js";
import { tempDir } from "../src/test-fixtures.js";

// The store with the real client, in one process (the cross-process cases are in
// client-processes.test.ts). Two store instances on one file stand for two hosts.

let tmp: ReturnType<typeof tempDir>;
const stores: SqliteStore[] = [];
const open = () => {
  const store = sqliteStore({ path: tmp.file() });
  stores.push(store);
  return store;
};
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  tmp.cleanup();
});

function host(store: SqliteStore, runs: string[], expiresAt?: number) {
  const ask = nativeTool({
    name: "ask",
    description: "Asks the human a question",
    ctx: true,
    run: (args: Record<string, unknown>, ctx) => {
      if (ctx.answer === undefined) {
        return pending({
          kind: "question",
          prompt: String(args.q),
          ...(expiresAt === undefined ? {} : { expiresAt }),
        });
      }
      runs.push(`${String(args.q)}=${String(ctx.answer.data?.value)}`);
      return String(ctx.answer.data?.value);
    },
  });
  return createClient({
    // Decides from the transcript, so a fresh host (a fresh script) continues a resumed run.
    model: scriptedModel(
      Array.from(
        { length: 3 },
        () =>
          ({ messages }: ModelRequest) =>
            messages.at(-1)?.role === "tool"
              ? {
                  content: messages
                    .filter((m) => m.role === "tool")
                    .map((m) => m.content)
                    .join(", "),
                }
              : {
                  toolCalls: [
                    { id: "c1", name: "ask", arguments: { q: "first" } },
                    { id: "c2", name: "ask", arguments: { q: "second" } },
                  ],
                },
      ),
    ),
    tools: [ask],
    runs: store,
    conversations: store,
  });
}

describe("with the real client", () => {
  it("a turn with two suspensions: one run, both requests kept; answers from two hosts are both applied", async () => {
    const runs: string[] = [];
    const store = open();
    const halted = await host(store, runs).run("ask me two things", { sessionId: "s" });
    expect(halted.status).toBe("pending");
    const [r1, r2] = halted.status === "pending" ? halted.pendings : [];
    expect(store.list().map((s) => [s.request.id, s.state])).toEqual([
      [r1!.id, "waiting"],
      [r2!.id, "waiting"],
    ]);

    // Another host on the same file answers the first request: the run halts again on the
    // second, with the same Request (same id), in the same run.
    const other = open();
    const again = await host(other, runs).resume({ id: r1!.id, ok: true, data: { value: "A" } });
    expect(again.status).toBe("pending");
    expect(again.status === "pending" && again.pending.id).toBe(r2!.id);
    expect(store.list().map((s) => [s.request.id, s.state])).toEqual([
      [r1!.id, "applied"],
      [r2!.id, "waiting"],
    ]);
    expect(store.getRun(halted.runId)?.state).toBe("waiting");

    const done = await host(store, runs).resume({ id: r2!.id, ok: true, data: { value: "B" } });
    expect(done.status).toBe("done");
    expect(done.text).toBe("A, B");
    expect(runs).toEqual(["first=A", "second=B"]);
    expect(store.list({ state: "waiting" })).toEqual([]);
    await expect(
      host(other, runs).resume({ id: r2!.id, ok: true, data: { value: "C" } }),
    ).rejects.toMatchObject({ code: "answer_conflict" });
    expect(runs).toEqual(["first=A", "second=B"]);
  });

  it("an expired request lists as expired and resolves as expired on resume", async () => {
    const runs: string[] = [];
    const store = open();
    const halted = await host(store, runs, Date.now() - 1000).run("ask", { sessionId: "x" });
    expect(halted.status).toBe("pending");
    const ids = halted.status === "pending" ? halted.pendings.map((r) => r.id) : [];
    expect(store.list({ state: "expired" }).map((s) => s.request.id)).toEqual(ids);
    expect(store.list({ state: "waiting" })).toEqual([]);

    // An answer after the deadline is refused; the run continues as if both were declined.
    await expect(
      host(open(), runs).answer({ id: ids[0]!, ok: true, data: { value: "A" } }),
    ).rejects.toMatchObject({ code: "answer_conflict", reason: "expired" });
    const done = await host(open(), runs).continueRun(halted.runId);
    expect(done.status).toBe("done");
    expect(done.text).toBe("declined/expired: first, declined/expired: second");
    expect(runs).toEqual([]);
    expect(store.list().map((s) => s.state)).toEqual(["applied", "applied"]);
  });
});
