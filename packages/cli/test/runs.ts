// Real runs for the command to operate on: a client with a scripted model and tools that halt
// on a question (with a JSON Schema for its answer) and on an approval, over a real store.
import { createClient } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import { pending, type RunStore } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";

/** The schema the environment question's answer must match. */
export const ENV_SCHEMA = {
  type: "object",
  properties: { env: { enum: ["staging", "production"] }, note: { type: "string" } },
  required: ["env"],
  additionalProperties: false,
};

const askEnv = nativeTool({
  name: "ask_env",
  description: "Asks where to deploy",
  ctx: true,
  run: (_args, ctx) =>
    ctx.answer === undefined
      ? pending({
          kind: "input",
          prompt: "Which environment?",
          data: { schema: ENV_SCHEMA },
        })
      : `deploying to ${String(ctx.answer.data?.env)}`,
});

const deploy = nativeTool({
  name: "deploy",
  description: "Deploys the app",
  needsApproval: true,
  approvalPrompt: () => "Deploy web to production?",
  run: () => "deployed",
});

const TOOLS = [askEnv, deploy];

/** Starts a run that halts on the environment question; resolves to its run and request ids. */
export async function haltOnQuestion(
  store: RunStore,
  options: { agent: string; sessionId: string },
): Promise<{ runId: string; requestId: string }> {
  const model = scriptedModel([
    { toolCalls: [{ id: "call_env", name: "ask_env", arguments: {} }] },
  ]);
  const client = createClient({ model, tools: TOOLS, runs: store, agent: options.agent });
  const result = await client.run("ship web", { sessionId: options.sessionId });
  if (result.status !== "pending") throw new Error(`expected a halt, got ${result.status}`);
  return { runId: result.runId, requestId: result.pendings[0]!.id };
}

/** Starts a run that halts on the deploy tool's approval. */
export async function haltOnApproval(
  store: RunStore,
  options: { agent: string; sessionId: string },
): Promise<{ runId: string; requestId: string }> {
  const model = scriptedModel([
    { toolCalls: [{ id: "call_deploy", name: "deploy", arguments: {} }] },
  ]);
  const client = createClient({ model, tools: TOOLS, runs: store, agent: options.agent });
  const result = await client.run("deploy web", { sessionId: options.sessionId });
  if (result.status !== "pending") throw new Error(`expected a halt, got ${result.status}`);
  return { runId: result.runId, requestId: result.pendings[0]!.id };
}

/** Continues a run whose answer was recorded, to its end (the model says `text`). */
export async function continueToEnd(store: RunStore, runId: string, text: string, agent: string) {
  const model = scriptedModel([{ content: text }]);
  const client = createClient({ model, tools: TOOLS, runs: store, agent });
  return client.continueRun(runId);
}

/** A run that halted, was answered, then failed in a worker that gave up on it. */
export async function failedRun(store: RunStore, options: { agent: string; sessionId: string }) {
  const { runId, requestId } = await haltOnQuestion(store, options);
  await store.answer({ id: requestId, ok: true, data: { env: "staging" } }, { by: "dave" });
  const claimed = await store.claim({ owner: "worker-1", leaseMs: 60_000, runId });
  if (claimed === undefined) throw new Error("expected to claim the run");
  await store.finish(claimed.lease, {
    state: "failed",
    error: { code: "model_failed", message: "the model is down", at: new Date().toISOString() },
  });
  return runId;
}
