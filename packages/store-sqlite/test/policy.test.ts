// Approval policies end to end on a real SQLite file: the policy's decision and every person's
// answer in the store's audit trail, two distinct approvers recorded by another host on the
// same file, refusals typed, and the call run once after the last approval.
import { createClient } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import { ok, type RecordedRunEvent, type Tool } from "@toolnexus/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type SqliteStore, sqliteStore } from "../src/store.js";
import { tempDir } from "../src/test-fixtures.js";

let tmp: ReturnType<typeof tempDir>;
const stores: SqliteStore[] = [];
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  tmp.cleanup();
});
const open = () => {
  const store = sqliteStore({ path: tmp.file() });
  stores.push(store);
  return store;
};

const ran: string[] = [];
const tools: Tool[] = ["drop_table", "read_table"].map((name) => ({
  name,
  description: name,
  inputSchema: { type: "object" },
  source: "custom",
  annotations: { deletes: name.startsWith("drop") },
  async execute(args) {
    ran.push(`${name} ${JSON.stringify(args)}`);
    return ok(`${name} done`);
  },
}));

function host(store: SqliteStore) {
  return createClient({
    model: scriptedModel([
      {
        toolCalls: [
          { id: "c1", name: "drop_table", arguments: { table: "users" } },
          { id: "c2", name: "read_table", arguments: { table: "users" } },
        ],
      },
      { content: "finished" },
    ]),
    tools,
    runs: store,
    policies: [
      {
        name: "two-for-deletes",
        decide: ({ tool }) =>
          tool.annotations.deletes === true
            ? { decision: "ask", to: "dba", approvals: 2 }
            : { decision: "allow" },
      },
    ],
  });
}

describe("approval policies on SQLite", () => {
  it("two distinct approvers, recorded by another host; the audit trail shows every decision", async () => {
    ran.length = 0;
    const store = open();
    const client = host(store);
    const halted = await client.run("clean up", { requester: "alice", durable: true });
    if (halted.status !== "pending") throw new Error("expected a halt");
    // The read ran at once under the policy; the drop waits.
    expect(ran).toEqual(['read_table {"table":"users"}']);

    // Another host on the same file records the answers.
    const other = createClient({ model: scriptedModel([]), tools, runs: open() });
    const first = halted.pending.id;
    await expect(other.answer({ id: first, ok: true }, { by: "alice" })).rejects.toMatchObject({
      code: "approval_refused",
      reason: "own_request",
    });
    await other.answer({ id: first, ok: true }, { by: "bob" });
    const second = await client.continueRun(halted.runId);
    if (second.status !== "pending") throw new Error("expected the second approval");
    expect(ran).toHaveLength(1);
    await expect(
      other.answer({ id: second.pending.id, ok: true }, { by: "bob" }),
    ).rejects.toMatchObject({ reason: "already_approved" });
    await other.answer({ id: second.pending.id, ok: true }, { by: "carol" });
    const done = await client.continueRun(halted.runId);
    expect(done.status).toBe("done");
    expect(ran).toEqual(['read_table {"table":"users"}', 'drop_table {"table":"users"}']);

    // Who answered each request, in the store.
    expect(store.getRequest(first)).toMatchObject({ answeredBy: "bob", state: "applied" });
    expect(store.getRequest(second.pending.id)).toMatchObject({ answeredBy: "carol" });
    // The events show the policy's own decisions and the people's answers.
    const events = store.readEvents(halted.runId, 0) as RecordedRunEvent[];
    const results = events.filter((e) => e.type === "tool_result" && e.data.pending !== true);
    expect(results.map((e) => [e.data.name, e.data.policy])).toEqual([
      ["read_table", { name: "two-for-deletes", decision: "allow", by: "policy:two-for-deletes" }],
      [
        "drop_table",
        {
          name: "two-for-deletes",
          decision: "ask",
          by: "policy:two-for-deletes",
          approvedBy: ["bob", "carol"],
        },
      ],
    ]);
    const answered = events.filter((e) => e.type === "answered").map((e) => e.data.by);
    expect(answered).toEqual(["bob", "carol"]);
  });
});
