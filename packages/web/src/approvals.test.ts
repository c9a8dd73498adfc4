// Approval policies over HTTP: a run whose policy asks two people, answered through the handler
// on 127.0.0.1. The requester and a repeated approver get 403 approval_refused; two others
// approve, and the call runs once.
import { createClient, memoryRunStore } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import type { Tool } from "@toolnexus/core";
import { afterEach, describe, expect, it } from "vitest";
import type { WebHandlerOptions } from "./options.js";
import { allowOwnSessions, auth, postJson, type Served, serveNode, type User } from "./test-kit.js";

// Four people who may all see session S.
const PEOPLE: Record<string, User> = Object.fromEntries(
  ["alice", "bob", "carol", "dave"].map((id) => [`token-${id}`, { id, sessions: ["S"] }]),
);
const identify: WebHandlerOptions<User>["identify"] = (request) => {
  const match = /^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "");
  return match ? PEOPLE[match[1]!] : undefined;
};

describe("approval policies over HTTP", () => {
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  it("refuses the requester and a second approval by one person with 403; two others approve", async () => {
    const deleted: string[] = [];
    const drop: Tool = {
      name: "drop_table",
      description: "Drops a table",
      inputSchema: { type: "object" },
      source: "custom",
      annotations: { deletes: true },
      async execute(args) {
        deleted.push(String(args.table));
        return { output: "dropped", isError: false };
      },
    };
    const store = memoryRunStore();
    const client = createClient({
      model: scriptedModel([
        { toolCalls: [{ id: "c1", name: "drop_table", arguments: { table: "users" } }] },
        { content: "dropped it" },
      ]),
      tools: [drop],
      runs: store,
      policies: [
        {
          name: "deletes",
          decide: ({ tool }) =>
            tool.annotations.deletes === true
              ? { decision: "ask", to: "dba", approvals: 2, prompt: "Drop users?" }
              : undefined,
        },
      ],
    });
    served = await serveNode({ store, identify, allow: allowOwnSessions });
    const halted = await client.run("drop it", { sessionId: "S", requester: "alice" });
    if (halted.status !== "pending") throw new Error("expected a halt");
    const answer = (token: string, id: string) =>
      postJson(served!, `/requests/${encodeURIComponent(id)}/answer`, { ok: true }, auth(token));

    const own = await answer("token-alice", halted.pending.id);
    expect(own.status).toBe(403);
    expect(await own.json()).toEqual({
      error: {
        code: "approval_refused",
        message: "you started the run that asks for this approval; someone else must approve it",
        reason: "own_request",
      },
    });
    expect((await answer("token-bob", halted.pending.id)).status).toBe(200);
    const second = await client.continueRun(halted.runId);
    if (second.status !== "pending") throw new Error("expected the second approval");
    expect(second.pending.prompt).toBe("Drop users? (approval 2 of 2; approved by bob)");

    const twice = await answer("token-bob", second.pending.id);
    expect(twice.status).toBe(403);
    expect((await twice.json()).error).toMatchObject({
      code: "approval_refused",
      reason: "already_approved",
    });
    expect(deleted).toEqual([]);
    expect((await answer("token-carol", second.pending.id)).status).toBe(200);
    const done = await client.continueRun(halted.runId);
    expect(done.status).toBe("done");
    expect(deleted).toEqual(["users"]);

    const run = await (
      await fetch(`${served.base}/runs/${encodeURIComponent(halted.runId)}`, {
        headers: auth("token-dave"),
      })
    ).json();
    expect(run.state).toBe("done");
    expect((await store.getRequest(halted.pending.id))?.answeredBy).toBe("bob");
    expect((await store.getRequest(second.pending.id))?.answeredBy).toBe("carol");
  });
});
