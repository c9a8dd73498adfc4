// A run under a durable-execution engine (`RunOptions.durability`): the engine's handler calls
// `client.run(prompt, { runId, durability })` and gets the run's end. The run keeps its state in
// a store of its own, in memory, for this execution of the handler only: the engine's journal is
// what survives, and a replay rebuilds the store from the recorded steps. A halt waits for its
// answers through the engine (`durability.answers`) and the run continues in the same call.
import { type Durability, ToolnexusError } from "@toolnexus/core";
import type { ResolvedConfig } from "./config.js";
import { parseAnswers, recordAnswers, settleRun } from "./durable.js";
import { memoryRunStore } from "./memory-stores.js";
import { startRun } from "./start.js";
import { awaitedOf, isRunStore, runOnStore } from "./store-run.js";
import type { RunOptions, RunResult } from "./types.js";

function checkDurability(durability: unknown): asserts durability is Durability {
  const given = durability as Partial<Durability> | null;
  if (typeof given?.step !== "function" || typeof given.answers !== "function") {
    throw new TypeError(
      "run: durability must be a run store, or have step(step, work) and answers(requests) methods (an engine adapter such as @toolnexus/restate makes one)",
    );
  }
}

/** Runs `prompt` under `options.durability` to its end (done or incomplete), through every halt. */
export async function runUnderEngine(
  config: ResolvedConfig,
  prompt: string,
  options: RunOptions,
): Promise<RunResult> {
  const { durability, runId, ...rest } = options;
  if (typeof runId !== "string" || runId === "") {
    throw new TypeError(
      "run: a run under durability needs runId (the engine's workflow key), so a replay is the same run",
    );
  }
  if (options.durable === true) {
    throw new TypeError("run: durable and durability exclude each other (the engine is the store)");
  }
  if (isRunStore(durability)) return runOnStore(config, durability, prompt, { ...options, runId });
  checkDurability(durability);
  const own: ResolvedConfig = {
    ...config,
    runs: memoryRunStore(),
    defaultRuns: false,
    // A question waits through the engine, never in a step.
    waitFor: undefined,
    durability,
  };
  const { compaction } = config;
  const summarize = compaction?.summarize;
  if (compaction !== undefined && summarize !== undefined) {
    // A summary may come from a model: a step of its own, so a replay reads the same summary.
    let made = 0;
    own.compaction = {
      ...compaction,
      summarize: (older, info) =>
        durability.step({ key: `compact/${++made}`, kind: "model" }, async () =>
          summarize(older, info),
        ),
    };
  }
  let result = await startRun(own, prompt, { ...rest, runId }, { history: options.history });
  while (result.status === "pending") {
    const awaited = await awaitedOf(own.runs, runId);
    const answers = parseAnswers(await durability.answers(awaited));
    const asked = new Set(awaited.map(({ request }) => request.id));
    for (const answer of answers) {
      if (!asked.has(answer.id)) {
        throw new ToolnexusError(
          "answers_mismatch",
          `durability.answers gave an answer to "${answer.id}", which run ${runId} does not wait for`,
        );
      }
    }
    await recordAnswers(own, answers);
    result = await settleRun(own, runId, options.signal, undefined);
  }
  return result;
}

/** `ask` and `stream` do not run under an engine: their events and transcript are not steps. */
export function engineRunOnly(method: string): TypeError {
  return new TypeError(`${method}: durability is for run() only; under an engine, call run()`);
}
