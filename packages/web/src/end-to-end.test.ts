// The whole path through the real loop: a run halts on a tool's question with a JSON Schema,
// a person reads it and answers over HTTP while following the run's events, a worker continues
// the run from the store, and the follower sees it end. Only the model is scripted.
import { createClient, memoryRunStore } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import { pending, type Tool, type ToolContext } from "@toolnexus/core";
import { afterEach, describe, expect, it } from "vitest";
import {
  allowOwnSessions,
  auth,
  ENV_SCHEMA,
  identifyByToken,
  postJson,
  readSse,
  SERVERS,
  type Served,
} from "./test-kit.js";

const deploy: Tool = {
  name: "deploy",
  description: "Deploys, asking where",
  inputSchema: { type: "object", properties: {} },
  source: "custom",
  execute: async (_args, ctx?: ToolContext) => {
    if (ctx?.answer === undefined) {
      return pending({ kind: "input", prompt: "Where to?", data: { schema: ENV_SCHEMA } });
    }
    return { output: `deployed to ${String(ctx.answer.data?.env)}`, isError: false };
  },
};

describe.each(SERVERS)("a real run answered and followed over HTTP (%s)", (_name, serveWith) => {
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  it("halts, is answered by the signed-in user, continues in a worker, and the follower sees it done", async () => {
    const store = memoryRunStore();
    const client = createClient({
      model: scriptedModel([
        { toolCalls: [{ id: "c1", name: "deploy" }] },
        { content: "shipped to staging" },
      ]),
      tools: [deploy],
      runs: store,
    });
    served = await serveWith({
      store,
      identify: identifyByToken,
      allow: allowOwnSessions,
      pollMs: 50,
    });
    const halted = await client.run("ship it", { sessionId: "S" });
    if (halted.status !== "pending") throw new Error("expected the run to halt");

    const { requests } = await (
      await fetch(`${served.base}/requests?state=waiting`, { headers: auth("token-alice") })
    ).json();
    expect(requests).toHaveLength(1);
    const [question] = requests;
    expect(question).toMatchObject({
      kind: "input",
      prompt: "Where to?",
      data: { schema: ENV_SCHEMA },
    });
    // bob's session is T: this run is not his to see.
    expect(
      (await (await fetch(`${served.base}/requests`, { headers: auth("token-bob") })).json())
        .requests,
    ).toEqual([]);

    const follower = fetch(`${served.base}/runs/${encodeURIComponent(question.runId)}/events`, {
      headers: auth("token-alice"),
    }).then((response) => readSse(response));
    const answered = await postJson(
      served,
      `/requests/${encodeURIComponent(question.id)}/answer`,
      { ok: true, data: { env: "staging" } },
      auth("token-alice"),
    );
    expect(answered.status).toBe(200);
    const done = await client.continueRun(question.runId);
    expect(done.status).toBe("done");

    const { frames, ended } = await follower;
    expect(ended).toBe(true);
    const types = frames.map((frame) => frame.event);
    expect(types).toContain("answered");
    expect(types.at(-1)).toBe("done");
    const ids = frames.map((frame) => Number(frame.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);

    const run = await (
      await fetch(`${served.base}/runs/${encodeURIComponent(question.runId)}`, {
        headers: auth("token-alice"),
      })
    ).json();
    expect(run).toMatchObject({ state: "done", text: "shipped to staging", sessionId: "S" });
    expect(run.requests[0]).toMatchObject({ answeredBy: "alice", answer: { ok: true } });
  });
});
