// A toolnexus agent as a DBOS workflow: the workflow id is the run id, its input the prompt and
// the run's plain options, its output the run's end. Registered before DBOS.launch(), as DBOS
// requires, so a process restarted after a crash has the workflow to recover.
import { DBOS } from "@dbos-inc/dbos-sdk";
import type { Client, RunOptions, RunResult } from "@toolnexus/client";
import { checkId } from "@toolnexus/core";
import { dbosDurability } from "./durability.js";
import { checkDbosId } from "./ids.js";
import { workflowNameOf } from "./names.js";

/** The run options a workflow input carries (plain data: DBOS records it). */
export type DbosRunOptions = Pick<RunOptions, "sessionId" | "history" | "extra" | "requester">;

/** What a run's workflow receives. */
interface AgentInput {
  prompt: string;
  options: DbosRunOptions;
}

export interface DbosAgentOptions {
  /** The agent's name: its workflow is `toolnexus.<name>`, the same in every process. */
  name: string;
  /** The toolnexus client whose model, tools, hooks and instrumentation the runs use. */
  client: Client;
  /**
   * A DBOS queue (registered with `DBOS.registerQueue` after launch) that runs start on, so its
   * concurrency limits how many run at once; without one, each run starts at once.
   */
  queue?: string;
}

export interface DbosStartOptions extends DbosRunOptions {
  /** The run's id, which is its workflow id. Starting an id that exists attaches to that run. */
  runId: string;
  /** Overrides the agent's queue for this run (`null`: start at once). */
  queue?: string | null;
}

/** A run started by `start`. */
export interface DbosRun {
  runId: string;
  /** Waits for the run's end (in the starting process, without polling the database). */
  result(): Promise<RunResult>;
}

/** A toolnexus agent registered as a DBOS workflow. */
export interface DbosAgent {
  /** The DBOS workflow name (`toolnexus.<name>`). */
  readonly workflowName: string;
  /**
   * Starts (or enqueues) run `runId`; resolves once DBOS recorded it. A run id or session id
   * that core's `checkId` refuses (more than `MAX_STORE_ID_CHARS`, a NUL, an unpaired
   * surrogate), or a run id of more than 1,024 bytes of UTF-8, throws an `InvalidIdError`
   * (`invalid_id`) before anything is written.
   */
  start(prompt: string, options: DbosStartOptions): Promise<DbosRun>;
  /**
   * Waits for run `runId` to end, started in any process, and returns its result (it may wait
   * for a human first). DBOS polls the database for it, every `pollingIntervalMs` (DBOS's
   * default: 1000).
   */
  result(runId: string, options?: { pollingIntervalMs?: number }): Promise<RunResult>;
  /** `start`, then `result`. */
  run(prompt: string, options: DbosStartOptions): Promise<RunResult>;
}

/**
 * Registers `client`'s agent as the DBOS workflow `toolnexus.<name>`. Call it at module load,
 * before `DBOS.launch()`, in every process of the application (DBOS recovers a run in a process
 * that has its workflow). Each model turn and tool call is a step, each question waits on
 * `recv`; answer with `answer()`.
 */
export function registerAgent(options: DbosAgentOptions): DbosAgent {
  const { client } = options;
  checkId(options.name, "name");
  const workflowName = workflowNameOf(options.name);
  const workflow = DBOS.registerWorkflow(
    async (input: AgentInput): Promise<RunResult> => {
      // A DBOS cancel aborts the run's signal, so the tool in flight sees its ctx.signal abort.
      const cancel = new AbortController();
      return client.run(input.prompt, {
        ...input.options,
        runId: DBOS.workflowID!,
        signal: cancel.signal,
        durability: dbosDurability({ onCancel: (reason) => cancel.abort(reason) }),
      });
    },
    { name: workflowName },
  );
  const start = async (prompt: string, start: DbosStartOptions) => {
    const { runId, queue, ...runOptions } = start;
    if (typeof runId !== "string" || runId === "") {
      throw new TypeError("start: runId is required (it is the DBOS workflow id)");
    }
    // Before DBOS writes the workflow's row: PostgreSQL refuses a NUL, a long id overflows the
    // primary key's index, and the run keeps its state in a run store, which refuses both.
    checkDbosId(runId, "runId");
    checkId(runOptions.sessionId, "sessionId");
    const queueName = queue === undefined ? options.queue : (queue ?? undefined);
    const handle = await DBOS.startWorkflow(workflow, {
      workflowID: runId,
      ...(queueName === undefined ? {} : { queueName }),
    })({ prompt, options: runOptions });
    return { runId: handle.workflowID, result: () => handle.getResult() };
  };
  return {
    workflowName,
    start,
    async result(runId, polling = {}) {
      checkDbosId(runId, "runId");
      return DBOS.retrieveWorkflow<RunResult>(runId).getResult(polling);
    },
    async run(prompt, runOptions) {
      return (await start(prompt, runOptions)).result();
    },
  };
}
