// A durable run's steps: each model turn and each execution of a tool call is one step of its
// backend (an engine's `RunOptions.durability`, or the run store under the run's lease:
// lease-durability.ts), recorded once and replayed from its record. What the loop does outside
// steps only depends on step results, so a replay engine that runs the handler again from the
// top rebuilds the same run.
import {
  addUsage,
  callIdOf,
  type Durability,
  type DurableStep,
  type ModelResponse,
  modelStepKey,
  randomId,
  type ToolCall,
  type ToolCallRecord,
  toolStepKey,
} from "@toolnexus/core";
import { rollUp, type Settled } from "./call-outcome.js";
import { settleAll } from "./fan-out.js";
import { callModel } from "./model-call.js";
import type { Run } from "./run-state.js";
import { refuseCall, settleCall } from "./tool-call.js";

/**
 * A model turn as a step. Ids the loop would make for the response (a message id, a missing or
 * repeated call id) are made inside the step, so a replay reads the same ones.
 */
export async function modelStep(
  run: Run,
  durability: Durability,
): Promise<ModelResponse | "timeout"> {
  let ran = false;
  const response = await durability.step(
    { key: modelStepKey(run.turns + 1), kind: "model" },
    async () => {
      ran = true;
      const got = await callModel(run);
      return got === "timeout" ? got : withIds(got);
    },
  );
  // Replayed: the model was not called here, so its usage was not counted yet.
  if (!ran && response !== "timeout" && response.usage !== undefined) {
    run.usage = addUsage(run.usage, response.usage);
    if (run.listening) run.emit({ type: "usage", usage: response.usage, total: run.usage });
  }
  return response;
}

/** The response with an id, and call ids non-empty and distinct within the turn. */
function withIds(response: ModelResponse): ModelResponse {
  const id = response.id || randomId("msg");
  const seen = new Set<string>();
  let toolCalls = response.toolCalls;
  for (let i = 0; i < toolCalls.length; i++) {
    const call = toolCalls[i]!;
    if (call.id !== "" && !seen.has(call.id)) {
      seen.add(call.id);
      continue;
    }
    if (toolCalls === response.toolCalls) toolCalls = [...toolCalls];
    const fresh = randomId("call");
    seen.add(fresh);
    toolCalls[i] = { ...call, id: fresh };
  }
  return id === response.id && toolCalls === response.toolCalls
    ? response
    : { ...response, id, toolCalls };
}

/** The backend a run's steps go to: the store under its lease, else the engine, else none. */
export function stepsOf(run: Run): Durability | undefined {
  return run.journal?.steps ?? run.config.durability;
}

/** A turn's calls, each a step (a call the backend recorded before is reused as it is). */
export function settleTurnDurably(
  run: Run,
  durability: Durability,
  messageId: string,
  calls: readonly ToolCall[],
): Promise<Settled[]> {
  const { maxConcurrentTools, maxToolCallsPerTurn } = run.config;
  const asked = calls.length;
  const one = (i: number) => {
    const call = calls[i]!;
    return callStep(run, durability, call, undefined, () =>
      i < maxToolCallsPerTurn
        ? settleCall(run, call, messageId)
        : refuseCall(run, call, messageId, asked),
    );
  };
  // Steps start in call order (settleAll hands out indices in order), so a replay starts them
  // in the same order whichever finished first.
  if (run.config.durability === undefined || asked <= maxConcurrentTools) {
    return settleAll(asked, maxConcurrentTools, one);
  }
  return inChunks(asked, maxConcurrentTools, one);
}

/**
 * Under an engine, more calls than `limit` run in chunks of `limit`, each asked for at once: an
 * engine that runs the steps asked for together as one batch (Restate) then groups them the same
 * way on a replay, whichever call of a chunk finished first.
 */
async function inChunks(
  count: number,
  limit: number,
  work: (index: number) => Promise<Settled>,
): Promise<Settled[]> {
  const all: Settled[] = [];
  for (let from = 0; from < count; from += limit) {
    const size = Math.min(limit, count - from);
    all.push(...(await settleAll(size, size, (i) => work(from + i))));
  }
  return all;
}

/**
 * One execution of a call as a step: its first (`requestId` undefined) or the one with the
 * answer to `requestId`. The step's attempt is the call's `ctx.attempt`.
 */
export async function callStep(
  run: Run,
  durability: Durability,
  call: ToolCall,
  requestId: string | undefined,
  work: () => Settled | Promise<Settled>,
): Promise<Settled> {
  const callId = callIdOf(call);
  let ran = false;
  const step: DurableStep = { key: toolStepKey(callId, requestId), kind: "tool", callId };
  if (requestId !== undefined) step.requestId = requestId;
  const settled = await durability.step(step, async (attempt) => {
    ran = true;
    run.attempts ??= new Map();
    run.attempts.set(callId, attempt);
    return work();
  });
  if (!ran) replayed(run, settled);
  return settled;
}

/** What running the call did to the run, done again for a replayed step. */
function replayed(run: Run, settled: Settled): void {
  const record: ToolCallRecord | undefined = settled.record;
  if (record === undefined) return;
  run.records.push(record);
  // A sub-agent's tokens are the parent run's too.
  if (run.config.tools.get(record.name)?.source === "agent") rollUp(run, record.result);
}
