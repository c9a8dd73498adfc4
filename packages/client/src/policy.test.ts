import { ApprovalRefusedError, approvalOf, ok, type Tool, type ToolResult } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import { createClient } from "./client.js";
import { memoryRunStore } from "./memory-stores.js";
import type { ApprovalPolicy } from "./policy.js";
import { scriptedModel } from "./testing.js";

function tool(name: string, more: Partial<Tool> = {}): Tool {
  return {
    name,
    description: name,
    inputSchema: { type: "object" },
    source: "custom",
    async execute(args): Promise<ToolResult> {
      return ok(`${name} ran with ${JSON.stringify(args)}`);
    },
    ...more,
  };
}

const tools = [
  tool("deploy", { approvalPrompt: (args) => `Deploy ${args.version} to ${args.env}?` }),
  tool("delete_user", { annotations: { deletes: true } }),
  tool("read_logs", { annotations: { readOnly: true } }),
  tool("rotate_keys", { needsApproval: true }),
  tool("explode"),
];

// The rules of the issue, as a host writes them: read-only runs, a change freeze stops the rest,
// deletes need two people, staging runs and production asks the on-call.
const policies: ApprovalPolicy[] = [
  {
    name: "read-only",
    decide: ({ tool }) => (tool.annotations.readOnly === true ? { decision: "allow" } : undefined),
  },
  {
    name: "freeze",
    decide: ({ extra }) =>
      extra?.freeze === true ? { decision: "deny", reason: "change freeze in effect" } : undefined,
  },
  {
    name: "deletes",
    decide: ({ tool, args }) =>
      tool.annotations.deletes === true
        ? { decision: "ask", to: "admins", approvals: 2, prompt: `Delete user ${args.id}?` }
        : undefined,
  },
  {
    name: "environments",
    decide: ({ tool, args }) => {
      if (tool.name !== "deploy") return undefined;
      if (args.env === "staging") return { decision: "allow" };
      if (args.env === "production") return { decision: "ask", to: "on-call" };
      return undefined;
    },
  },
  {
    name: "broken",
    decide: ({ tool }) => {
      if (tool.name === "explode") throw new Error("secret-token-123 leaked in a bug");
      return undefined;
    },
  },
];

interface Row {
  case: string;
  tool: string;
  args: Record<string, unknown>;
  requester?: string;
  extra?: Record<string, unknown>;
  /** ran: the tool ran; denied: the model read the reason; asked: the run halted for approval. */
  expected: "ran" | "denied" | "asked";
  /** The policy that decided (`by: policy:<name>`), or none when no policy decided. */
  policy?: string;
  to?: string;
  prompt?: string;
  approvals?: number;
  reason?: string;
}

const table: Row[] = [
  {
    case: "staging deploys run",
    tool: "deploy",
    args: { env: "staging", version: "1.4" },
    requester: "alice",
    expected: "ran",
    policy: "environments",
  },
  {
    case: "production deploys ask the on-call",
    tool: "deploy",
    args: { env: "production", version: "1.4" },
    requester: "alice",
    expected: "asked",
    policy: "environments",
    to: "on-call",
    prompt: "Deploy 1.4 to production?",
    approvals: 1,
  },
  {
    case: "a freeze denies production",
    tool: "deploy",
    args: { env: "production", version: "1.4" },
    requester: "bob",
    extra: { freeze: true },
    expected: "denied",
    policy: "freeze",
    reason: "change freeze in effect",
  },
  {
    case: "a freeze denies staging too",
    tool: "deploy",
    args: { env: "staging", version: "1.5" },
    extra: { freeze: true },
    expected: "denied",
    policy: "freeze",
    reason: "change freeze in effect",
  },
  {
    case: "deletes ask two admins",
    tool: "delete_user",
    args: { id: "u1" },
    requester: "alice",
    expected: "asked",
    policy: "deletes",
    to: "admins",
    prompt: "Delete user u1? (approval 1 of 2)",
    approvals: 2,
  },
  {
    case: "a freeze stops deletes",
    tool: "delete_user",
    args: { id: "u2" },
    extra: { freeze: true },
    expected: "denied",
    policy: "freeze",
    reason: "change freeze in effect",
  },
  {
    case: "read-only tools run",
    tool: "read_logs",
    args: { lines: 10 },
    requester: "carol",
    expected: "ran",
    policy: "read-only",
  },
  {
    case: "read-only wins over a freeze",
    tool: "read_logs",
    args: { lines: 5 },
    extra: { freeze: true },
    expected: "ran",
    policy: "read-only",
  },
  {
    case: "no policy decides: the tool's needsApproval asks",
    tool: "rotate_keys",
    args: {},
    requester: "alice",
    expected: "asked",
    prompt: "Allow rotate_keys to run with {}?",
  },
  {
    case: "no policy decides, no needsApproval: the tool runs",
    tool: "deploy",
    args: { env: "dev", version: "2" },
    expected: "ran",
  },
  {
    case: "a policy that throws denies, without its error",
    tool: "explode",
    args: {},
    expected: "denied",
    policy: "broken",
    reason: "the policy failed",
  },
  {
    case: "production asked without a requester",
    tool: "deploy",
    args: { env: "production", version: "1.6" },
    expected: "asked",
    policy: "environments",
    to: "on-call",
    prompt: "Deploy 1.6 to production?",
    approvals: 1,
  },
];

function clientFor(row: Pick<Row, "tool" | "args">) {
  const runs = memoryRunStore();
  const model = scriptedModel([
    { toolCalls: [{ id: "c1", name: row.tool, arguments: row.args }] },
    { content: "finished" },
  ]);
  return { runs, client: createClient({ model, tools, runs, policies }) };
}

describe("approval policies", () => {
  it.each(table)("$case", async (row) => {
    const { client } = clientFor(row);
    const result = await client.run("go", {
      ...(row.requester === undefined ? {} : { requester: row.requester }),
      ...(row.extra === undefined ? {} : { extra: row.extra }),
    });
    if (row.expected === "asked") {
      expect(result.status).toBe("pending");
      if (result.status !== "pending") return;
      expect(result.pending.kind).toBe("approval");
      expect(result.pending.prompt).toBe(row.prompt);
      const approval = approvalOf(result.pending);
      if (row.policy === undefined) {
        expect(approval).toBeUndefined();
        return;
      }
      expect(approval).toMatchObject({ policy: row.policy, needed: row.approvals, given: 0 });
      expect(approval?.to).toBe(row.to);
      expect(result.pending.data?.to).toBe(row.to);
      expect(approval?.requester).toBe(row.requester);
      return;
    }
    expect(result.status).toBe("done");
    const [call] = result.toolCalls;
    const policy = call?.result.metadata?.policy as Record<string, unknown> | undefined;
    if (row.policy === undefined) expect(policy).toBeUndefined();
    else expect(policy).toMatchObject({ name: row.policy, by: `policy:${row.policy}` });
    if (row.expected === "ran") {
      expect(call?.result.isError).toBe(false);
      expect(call?.result.output).toBe(`${row.tool} ran with ${JSON.stringify(row.args)}`);
      if (row.policy !== undefined) expect(policy?.decision).toBe("allow");
    } else {
      expect(call?.result.isError).toBe(true);
      expect(policy).toMatchObject({ decision: "deny", reason: row.reason });
      // The model reads the reason as the tool's result, never what the policy threw.
      expect(call?.result.output).toBe(`denied by policy ${row.policy}: ${row.reason}`);
      const seen = JSON.stringify(result.messages);
      expect(seen).toContain(`denied by policy ${row.policy}: ${row.reason}`);
      expect(seen).not.toContain("secret-token-123");
    }
  });

  it("two distinct approvers, neither the requester, run a delete; refusals are typed", async () => {
    const { runs, client } = clientFor({ tool: "delete_user", args: { id: "u9" } });
    const first = await client.run("go", { requester: "alice" });
    if (first.status !== "pending") throw new Error("expected a halt");
    const id1 = first.pending.id;
    // Nobody may approve their own request, and an answer must say who.
    await expect(client.answer({ id: id1, ok: true }, { by: "alice" })).rejects.toMatchObject({
      code: "approval_refused",
      reason: "own_request",
    });
    await expect(client.answer({ id: id1, ok: true })).rejects.toBeInstanceOf(ApprovalRefusedError);
    const second = await client.resume({ id: id1, ok: true }, { by: "bob" });
    if (second.status !== "pending") throw new Error("expected the second approval request");
    const id2 = second.pending.id;
    expect(id2).not.toBe(id1);
    expect(second.pending.prompt).toBe("Delete user u9? (approval 2 of 2; approved by bob)");
    expect(approvalOf(second.pending)).toMatchObject({ given: 1, approvedBy: ["bob"] });
    await expect(client.answer({ id: id2, ok: true }, { by: "bob" })).rejects.toMatchObject({
      reason: "already_approved",
    });
    await expect(client.resume({ id: id2, ok: true }, { by: "alice" })).rejects.toMatchObject({
      reason: "own_request",
    });
    const done = await client.resume({ id: id2, ok: true }, { by: "dave" });
    expect(done.status).toBe("done");
    const record = done.toolCalls.find((c) => c.name === "delete_user");
    expect(record?.result.output).toBe('delete_user ran with {"id":"u9"}');
    expect(record?.result.metadata?.policy).toEqual({
      name: "deletes",
      decision: "ask",
      by: "policy:deletes",
      approvedBy: ["bob", "dave"],
    });
    // The audit trail: each request, who answered it.
    const info = await runs.getRequest(id1);
    expect(info?.answeredBy).toBe("bob");
    expect((await runs.getRequest(id2))?.answeredBy).toBe("dave");
  });

  it("a decline by an approver ends the call; the model reads it", async () => {
    const { client } = clientFor({ tool: "deploy", args: { env: "production", version: "9" } });
    const first = await client.run("go", { requester: "alice" });
    if (first.status !== "pending") throw new Error("expected a halt");
    const done = await client.resume(
      { id: first.pending.id, ok: false, reason: "declined" },
      { by: "oncall-1" },
    );
    expect(done.status).toBe("done");
    expect(done.toolCalls.find((c) => c.name === "deploy")?.result.output).toBe(
      "declined/expired: Deploy 9 to production?",
    );
  });

  it("refuses malformed policies at createClient", () => {
    const model = scriptedModel([]);
    expect(() =>
      createClient({ model, policies: [{ name: "", decide: () => undefined }] }),
    ).toThrow(/every entry of `policies`/);
    const twice = { name: "p", decide: () => undefined };
    expect(() => createClient({ model, policies: [twice, twice] })).toThrow(/two policies/);
  });
});

describe("approvals that run out of time", () => {
  function expiring(onExpiry?: { ok: boolean }) {
    const runs = memoryRunStore();
    const model = scriptedModel([
      { toolCalls: [{ id: "c1", name: "delete_user", arguments: { id: "u7" } }] },
      { content: "finished" },
    ]);
    const client = createClient({
      model,
      tools,
      runs,
      policies: [
        {
          name: "deletes",
          decide: () => ({
            decision: "ask",
            approvals: 2,
            expiresAt: Date.now() - 1,
            ...(onExpiry === undefined ? {} : { waitRules: { onExpiry } }),
          }),
        },
      ],
    });
    return client;
  }

  it("by default an expired approval declines the call", async () => {
    const client = expiring();
    const halted = await client.run("go", { requester: "alice" });
    if (halted.status !== "pending") throw new Error("expected a halt");
    expect(halted.pending.expiresAt).toBeDefined();
    const done = await client.continueRun(halted.runId);
    expect(done.status).toBe("done");
    const call = done.toolCalls.find((c) => c.name === "delete_user");
    expect(call?.result.output).toBe(
      'declined/expired: Allow delete_user to run with {"id":"u7"}? (approval 1 of 2)',
    );
  });

  it("onExpiry { ok: true } runs the call once and ends the approvals", async () => {
    const client = expiring({ ok: true });
    const halted = await client.run("go", { requester: "alice" });
    if (halted.status !== "pending") throw new Error("expected a halt");
    const done = await client.continueRun(halted.runId);
    expect(done.status).toBe("done");
    const call = done.toolCalls.find((c) => c.name === "delete_user");
    expect(call?.result.output).toBe('delete_user ran with {"id":"u7"}');
    expect(call?.result.metadata?.policy).toMatchObject({
      name: "deletes",
      decision: "ask",
      approvedBy: [],
    });
  });
});

describe("decisions on record in the checkpoint", () => {
  it("a halted run's getRun shows the decisions made so far; they survive the halt", async () => {
    const runs = memoryRunStore();
    const model = scriptedModel([
      {
        toolCalls: [
          { id: "c1", name: "read_logs", arguments: { lines: 3 } },
          { id: "c2", name: "deploy", arguments: { env: "production", version: "2.0" } },
          { id: "c3", name: "deploy", arguments: { env: "staging", version: "2.0" } },
        ],
      },
      {
        toolCalls: [
          { id: "c4", name: "explode", arguments: {} },
          { id: "c5", name: "rotate_keys", arguments: {} },
        ],
      },
      { content: "finished" },
    ]);
    const client = createClient({ model, tools, runs, policies });
    const halted = await client.run("go", { requester: "alice" });
    if (halted.status !== "pending") throw new Error("expected a halt");
    const info = await runs.getRun(halted.runId);
    expect(info?.checkpoint?.requester).toBe("alice");
    expect(info?.checkpoint?.decisions).toEqual([
      {
        callId: "c1",
        tool: "read_logs",
        policy: "read-only",
        decision: "allow",
        by: "policy:read-only",
      },
      {
        callId: "c3",
        tool: "deploy",
        policy: "environments",
        decision: "allow",
        by: "policy:environments",
      },
    ]);
    // The approval comes in; the next turn denies one call and halts on another's own approval.
    const again = await client.resume({ id: halted.pending.id, ok: true }, { by: "oncall-7" });
    if (again.status !== "pending") throw new Error("expected a second halt");
    const later = await runs.getRun(halted.runId);
    expect(later?.checkpoint?.decisions?.map((d) => [d.callId, d.policy, d.decision])).toEqual([
      ["c1", "read-only", "allow"],
      ["c3", "environments", "allow"],
      ["c2", "environments", "ask"],
      ["c4", "broken", "deny"],
    ]);
    expect(later?.checkpoint?.decisions?.[2]?.approvedBy).toEqual(["oncall-7"]);
    expect(later?.checkpoint?.decisions?.[3]?.reason).toBe("the policy failed");
    const done = await client.resume({ id: again.pending.id, ok: true }, { by: "oncall-7" });
    expect(done.status).toBe("done");
  });
});
