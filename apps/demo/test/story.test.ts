// The story in-process: the real loop, the four tools and the scripted assistant, checked at the
// level of RunResult and ToolContext rather than printed text.
import type { Request, ToolContext } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import { nextTurn, scriptedReleaseModel } from "../src/director.js";
import { answerSchemaOf, checkAnswerData, coerce } from "../src/schema.js";
import { AGENT, demoClient } from "../src/setup.js";
import type { ToolNote } from "../src/tools.js";

describe("the release story through createClient", () => {
  it("fills every context field, times out the hung call, asks twice, and finishes", async () => {
    const notes: ToolNote[] = [];
    const asked: Request[] = [];
    const client = demoClient({
      model: scriptedReleaseModel(),
      observe: (note) => notes.push(note),
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
    expect(done.text).toContain("Rollback not done: you declined it.");
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
