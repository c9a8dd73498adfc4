// Approval policies of a sub-agent (`agentTool`): its approval requests come up to the parent's
// run, where the parent's requester is refused and distinct people approve; who answered reaches
// the sub-agent's run, so its own count of approvers holds.
import { ok, type Tool } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import { agentTool } from "./agent-tool.js";
import { createClient } from "./client.js";
import { memoryRunStore } from "./memory-stores.js";
import { scriptedModel } from "./testing.js";

describe("a sub-agent's approval policy", () => {
  it("asks two distinct people through the parent; the parent's requester may not approve", async () => {
    const dropped: string[] = [];
    const drop: Tool = {
      name: "drop_table",
      description: "Drops a table",
      inputSchema: { type: "object" },
      source: "custom",
      annotations: { deletes: true },
      async execute(args, ctx) {
        dropped.push(`${String(args.table)} for ${String(ctx?.requester)}`);
        return ok("dropped");
      },
    };
    const runs = memoryRunStore();
    const dba = createClient({
      model: scriptedModel([
        { toolCalls: [{ id: "d1", name: "drop_table", arguments: { table: "users" } }] },
        { content: "the dba dropped it" },
      ]),
      tools: [drop],
      agent: "dba",
      runs,
      policies: [
        {
          name: "deletes",
          decide: ({ tool }) =>
            tool.annotations.deletes === true ? { decision: "ask", approvals: 2 } : undefined,
        },
      ],
    });
    const lead = createClient({
      model: scriptedModel([
        { toolCalls: [{ id: "l1", name: "dba", arguments: { prompt: "drop users" } }] },
        { content: "done" },
      ]),
      tools: [agentTool(dba, { name: "dba", description: "the database admin" })],
      runs,
    });
    const first = await lead.run("clean up", { requester: "alice", durable: true });
    if (first.status !== "pending") throw new Error("expected a halt");
    expect(first.pending.route).toEqual({ agent: "dba", path: ["dba"] });
    await expect(
      lead.answer({ id: first.pending.id, ok: true }, { by: "alice" }),
    ).rejects.toMatchObject({ code: "approval_refused", reason: "own_request" });
    const second = await lead.resume({ id: first.pending.id, ok: true }, { by: "bob" });
    if (second.status !== "pending") throw new Error("expected the second approval");
    expect(second.pending.prompt).toContain("approval 2 of 2; approved by bob");
    await expect(
      lead.resume({ id: second.pending.id, ok: true }, { by: "bob" }),
    ).rejects.toMatchObject({
      reason: "already_approved",
    });
    const done = await lead.resume({ id: second.pending.id, ok: true }, { by: "carol" });
    expect(done.status).toBe("done");
    expect(dropped).toEqual(["users for alice"]);
  });
});
