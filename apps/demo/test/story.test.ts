// The story in-process: the real loop, the four tools and the scripted assistant, checked at the
// level of RunResult and ToolContext rather than printed text.
import type { RunEvent } from "@toolnexus/client";
import type { Request, ToolContext } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import { nextTurn, scriptedReleaseModel } from "../src/director.js";
import { answerSchemaOf, checkAnswerData, coerce } from "../src/schema.js";
import { AGENT, demoClient, NOTES_AGENT } from "../src/setup.js";
import type { ToolNote } from "../src/tools.js";

const PUBLISH_PROMPT = "Please ship 2.4.1 and publish the release notes.";

/** The changelog writer's events as the assistant's stream carries them. */
function subAgentEvents(events: RunEvent[]) {
  return events.flatMap((e) => (e.type === "agent" ? [e] : []));
}

describe("the release story through createClient", () => {
  it("fills every context field, times out the hung call, asks twice, and finishes", async () => {
    const notes: ToolNote[] = [];
    const asked: Request[] = [];
    const events: RunEvent[] = [];
    const client = demoClient({
      model: scriptedReleaseModel(),
      observe: (note) => notes.push(note),
      onEvent: (event) => events.push(event),
      waitFor: (request) => {
        asked.push(request);
        return request.kind === "input"
          ? { id: request.id, ok: true, data: { env: "production", notify: true } }
          : { id: request.id, ok: true };
      },
    });
    const result = await client.run("Please ship 2.4.1.", { sessionId: "s-42" });
    expect(result.status).toBe("done");
    expect(result.turns).toBe(4);

    const seen = (tool: string) =>
      notes.filter((n) => n.tool === tool && n.kind === "context").map((n) => n.ctx as ToolContext);
    const [whoami] = seen("whoami");
    expect(whoami).toMatchObject({
      agent: AGENT,
      sessionId: "s-42",
      messageId: "msg_1",
      callId: "call_1_1",
      timeout: 5000,
    });
    expect(whoami?.signal).toBeInstanceOf(AbortSignal);
    expect(seen("fetch_status").map((c) => c.timeout)).toEqual([1000, 1000]);

    const records = new Map(result.toolCalls.map((r) => [r.id, r]));
    expect(records.get("call_1_1")?.result.output).toBe(`${AGENT}@s-42`);
    expect(records.get("call_1_2")).toMatchObject({ status: "ok", timedOut: false });
    expect(records.get("call_1_3")).toMatchObject({
      status: "error",
      timedOut: true,
      result: { output: "timed out after 1000ms" },
    });
    expect(notes.some((n) => n.kind === "cancelled" && n.text.includes("TimeoutError"))).toBe(true);

    expect(asked.map((r) => r.kind)).toEqual(["input", "approval"]);
    expect(answerSchemaOf(asked[0]!)?.fields.map((f) => f.name)).toEqual(["env", "notify"]);
    expect(seen("deploy").at(-1)?.answer).toMatchObject({ ok: true, data: { env: "production" } });
    expect(result.text).toContain("production is back on 2.4.0");

    // The changelog writer: a sub-agent called in the first turn, beside the status checks.
    expect(records.get("call_1_4")).toMatchObject({
      name: "write_release_notes",
      status: "ok",
      args: { version: "2.4.1" },
      result: {
        output: expect.stringContaining(
          "Release notes for 2.4.1: checkout: batch the cart's price lookups (#412)",
        ),
        metadata: { agent: NOTES_AGENT, turns: 2, runId: `${result.runId}/call_1_4` },
      },
    });
    // Its events reach the assistant's stream, marked with its agent and the assistant's call;
    // its tool sees its own agent, the assistant's session and a run of its own.
    const nested = subAgentEvents(events);
    expect(nested.every((e) => e.agent === NOTES_AGENT && e.callId === "call_1_4")).toBe(true);
    const call = nested.flatMap((e) => (e.event.type === "tool_call" ? [e.event] : []));
    expect(call.map((e) => e.call.name)).toEqual(["list_changes"]);
    expect(call[0]!.ctx).toMatchObject({
      agent: NOTES_AGENT,
      sessionId: "s-42",
      callId: "notes_call_1_1",
      runId: `${result.runId}/call_1_4`,
    });
    expect(nested.filter((e) => e.event.type === "message")).toHaveLength(2);
    // It asked nothing: the person answered only the deploy and the rollback.
    expect(asked.every((r) => r.route === undefined)).toBe(true);
  });

  it("asked to publish the notes, the changelog writer's approval reaches the person through the assistant", async () => {
    const asked: Request[] = [];
    const events: RunEvent[] = [];
    const client = demoClient({
      model: scriptedReleaseModel(),
      onEvent: (event) => events.push(event),
      waitFor: (request) => {
        asked.push(request);
        return request.kind === "input"
          ? { id: request.id, ok: true, data: { env: "staging" } }
          : { id: request.id, ok: true };
      },
    });
    const result = await client.run(PUBLISH_PROMPT, { sessionId: "s-43" });
    expect(result.status).toBe("done");
    expect(result.turns).toBe(4);
    expect(asked.map((r) => r.kind)).toEqual(["approval", "input", "approval"]);
    expect(asked[0]).toMatchObject({
      prompt: 'Allow publish_notes to run with {"version":"2.4.1"}?',
      route: { agent: NOTES_AGENT, path: ["write_release_notes"] },
    });
    const notes = result.toolCalls.find((r) => r.name === "write_release_notes");
    expect(notes?.result.output).toContain("Published at https://shop.example/changelog/2.4.1.");
    // publish_notes ran once, after the approval, inside the sub-agent.
    const published = subAgentEvents(events).flatMap((e) =>
      e.event.type === "tool_result" && e.event.call.name === "publish_notes" ? [e.event] : [],
    );
    expect(published.map((e) => [e.pending, e.isError])).toEqual([
      [true, false],
      [false, false],
    ]);
    expect(
      result.messages.find((m) => m.role === "assistant" && m.id === "msg_2")?.content,
    ).toContain("The changelog writer's notes are ready and published.");
  });

  it("halted without waitFor on the sub-agent's question, resumed with the answer, it goes on to the deploy", async () => {
    const client = demoClient({ model: scriptedReleaseModel() });
    const halted = await client.run(PUBLISH_PROMPT);
    if (halted.status !== "pending") throw new Error(`expected a halt, got ${halted.status}`);
    expect(halted.pending).toMatchObject({
      kind: "approval",
      route: { agent: NOTES_AGENT, path: ["write_release_notes"] },
    });
    expect(halted.pending.id).toMatch(/^pnd_\w+:write_release_notes$/);
    // The status checks of the same turn finished before the halt; they do not run again.
    expect(halted.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
      expect.stringContaining(`${AGENT}@`),
      expect.stringContaining("api: healthy"),
      "timed out after 1000ms",
      'Allow publish_notes to run with {"version":"2.4.1"}?',
    ]);
    const deploy = await client.resume({ id: halted.pending.id, ok: true });
    if (deploy.status !== "pending")
      throw new Error(`expected the deploy's input, got ${deploy.status}`);
    expect(deploy.pending.kind).toBe("input");
    const notes = deploy.messages.find((m) => m.role === "tool" && m.callId === "call_1_4");
    expect(notes?.content).toContain("Published at https://shop.example/changelog/2.4.1.");
    expect(deploy.messages.filter((m) => m.role === "tool")).toHaveLength(5);
  });

  // A declined (or expired) escalated question is passed down to the sub-agent (agent tools
  // handle refusals), so the changelog writer finishes and its notes are kept.
  it("a declined sub-agent question is passed down, and the sub-agent finishes", async () => {
    const client = demoClient({ model: scriptedReleaseModel() });
    const halted = await client.run(PUBLISH_PROMPT);
    if (halted.status !== "pending") throw new Error(`expected a halt, got ${halted.status}`);
    const deploy = await client.resume({ id: halted.pending.id, ok: false, reason: "declined" });
    const notes = deploy.messages.find((m) => m.role === "tool" && m.callId === "call_1_4");
    expect(notes?.content).toContain("Not published: the person declined.");
  });

  it("halts without waitFor: the first request is the deploy's input, with its schema and expiry", async () => {
    const client = demoClient({ model: scriptedReleaseModel() });
    const halted = await client.run("Please ship 2.4.1.");
    expect(halted.status).toBe("pending");
    if (halted.status !== "pending") return;
    expect(halted.pending).toMatchObject({ kind: "input", data: { version: "2.4.1" } });
    expect(Date.parse(halted.pending.expiresAt ?? "")).toBeGreaterThan(Date.now());
    const approval = await client.resume({
      id: halted.pending.id,
      ok: true,
      data: { env: "staging" },
    });
    expect(approval.status).toBe("pending");
    if (approval.status !== "pending") return;
    expect(approval.pending.kind).toBe("approval");
    const done = await client.resume({ id: approval.pending.id, ok: false, reason: "declined" });
    expect(done.status).toBe("done");
    expect(done.text).toContain("Rollback not done: it was not approved.");
  });

  it("the scripted assistant follows the version the person asks for", () => {
    const turn = nextTurn([{ role: "user", content: "ship 3.0.0 please" }]);
    expect(turn.content).toContain("3.0.0");
  });
});

describe("answer schemas", () => {
  const schema = answerSchemaOf({
    id: "r",
    kind: "input",
    prompt: "?",
    data: {
      schema: {
        type: "object",
        properties: {
          env: { type: "string", enum: ["staging", "production"] },
          replicas: { type: "integer" },
          notify: { type: "boolean" },
        },
        required: ["env"],
        additionalProperties: false,
      },
    },
  })!;

  it("accepts what fits and names every field that does not", () => {
    expect(checkAnswerData(schema, { env: "staging", replicas: 3, notify: false })).toEqual([]);
    expect(checkAnswerData(schema, { replicas: 1.5, notify: "yes", extra: 1 })).toEqual([
      '"env" is required',
      '"replicas" must be an integer',
      '"notify" must be a boolean',
      '"extra" is not a field of this request',
    ]);
    expect(checkAnswerData(schema, "staging")).toEqual(["the answer's data must be an object"]);
  });

  it("coerces typed text to the field's type", () => {
    const [env, replicas, notify] = schema.fields;
    expect(coerce(env!, " production ")).toBe("production");
    expect(coerce(replicas!, "4")).toBe(4);
    expect(coerce(notify!, "no")).toBe(false);
    expect(coerce(notify!, "Y")).toBe(true);
  });
});
