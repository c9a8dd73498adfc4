// A toolnexus run as a Restate workflow keyed by the run id: `run` drives the agent with the
// Restate durability, `answer` records a human's answer as the workflow's durable promise, and
// `requests` lists what the run waits for.
import {
  handlers,
  TerminalError,
  type WorkflowContext,
  type WorkflowSharedContext,
  workflow,
} from "@restatedev/restate-sdk";
import type { Client, RunResult } from "@toolnexus/client";
import {
  type Answer,
  type AwaitedRequest,
  checkDurableAnswerSize,
  checkId,
  type Message,
  parseAnswer,
} from "@toolnexus/core";
import {
  answerPromiseName,
  type RestateDurabilityOptions,
  restateDurability,
  WAITING_STATE,
} from "./durability.js";
import { ensureWithResolvers } from "./node20.js";

/** What the workflow's `run` handler takes: the prompt and the run's own options. */
export interface RunInput {
  prompt: string;
  /** Tools see it as `ctx.sessionId`. */
  sessionId?: string;
  /** Run-level host state (JSON), merged over the client's `extra`. */
  extra?: Record<string, unknown>;
  /** Earlier messages to continue from. */
  history?: Message[];
}

/** What the `answer` handler says: whether this answer was the one recorded for its request. */
export interface AnswerReceipt {
  requestId: string;
  /** False when the request already had an answer (the first one is kept). */
  recorded: boolean;
}

/** Options of {@link toolnexusWorkflow}. */
export interface ToolnexusWorkflowOptions extends RestateDurabilityOptions {
  /** The agent: a client made once, shared by every run. */
  client: Client;
  /** The workflow's (service's) name. Default `toolnexus`. */
  name?: string;
}

/** The Restate service name of a workflow made without a `name`. */
export const DEFAULT_SERVICE = "toolnexus";

function inputOf(given: unknown): RunInput {
  const input = given as Partial<RunInput> | null;
  if (typeof input?.prompt !== "string") {
    throw new TerminalError("toolnexus: the run input must be { prompt: string, ... }", {
      errorCode: 400,
    });
  }
  return input as RunInput;
}

/**
 * Core's `checkId` as a terminal error (400): the run keeps its state in a run store, which
 * refuses such an id, so retrying could never succeed. `submitRun` and `answerRun` check the
 * same before they send; this catches a call straight to the ingress.
 */
function checkIdHere(id: unknown, field: string): void {
  try {
    checkId(id, field);
  } catch (thrown) {
    throw new TerminalError((thrown as Error).message, { errorCode: 400 });
  }
}

/**
 * A run that cannot succeed by trying again (a step that exhausted its retries, a refused
 * option) ends the workflow failed; any other error is Restate's to retry.
 */
function finalOf(thrown: unknown): unknown {
  for (let at = thrown, depth = 0; at !== undefined && depth < 8; depth++) {
    if (at instanceof TerminalError) {
      const message = thrown instanceof Error ? thrown.message : String(thrown);
      return new TerminalError(message, { errorCode: at.code });
    }
    at = (at as { cause?: unknown } | null)?.cause;
  }
  if (thrown instanceof TypeError) return new TerminalError(thrown.message, { errorCode: 400 });
  return thrown;
}

/**
 * A Restate workflow that runs `client`'s agent: one workflow per run, keyed by the run id.
 * Serve it with the SDK (`restate.serve({ services: [wf] })` or an endpoint), register the
 * deployment with the Restate server, then start runs, answer questions and read results through
 * Restate's ingress (see `submitRun`, `answerRun`, `waitingRequests`, `attachRun`).
 */
export function toolnexusWorkflow(options: ToolnexusWorkflowOptions) {
  ensureWithResolvers();
  const { client, name = DEFAULT_SERVICE, retry } = options;
  if (typeof client?.run !== "function") {
    throw new TypeError("toolnexusWorkflow: give the client made by createClient");
  }
  return workflow({
    name,
    handlers: {
      run: async (ctx: WorkflowContext, given: RunInput): Promise<RunResult> => {
        const input = inputOf(given);
        checkIdHere(ctx.key, "runId");
        checkIdHere(input.sessionId, "sessionId");
        try {
          return await client.run(input.prompt, {
            runId: ctx.key,
            durability: restateDurability(ctx, retry === undefined ? {} : { retry }),
            signal: ctx.request().attemptCompletedSignal,
            ...(input.sessionId === undefined ? {} : { sessionId: input.sessionId }),
            ...(input.extra === undefined ? {} : { extra: input.extra }),
            ...(input.history === undefined ? {} : { history: input.history }),
          });
        } catch (thrown) {
          throw finalOf(thrown);
        }
      },

      answer: handlers.workflow.shared(
        async (ctx: WorkflowSharedContext, given: Answer): Promise<AnswerReceipt> => {
          checkIdHere(ctx.key, "runId");
          let answer: Answer;
          try {
            answer = parseAnswer(given);
            checkId(answer.id, "answer.id");
            checkDurableAnswerSize(answer);
          } catch (thrown) {
            throw new TerminalError((thrown as Error).message, { errorCode: 400 });
          }
          const promise = ctx.promise<Answer>(answerPromiseName(answer.id));
          if ((await promise.peek()) !== undefined)
            return { requestId: answer.id, recorded: false };
          try {
            await promise.resolve(answer);
          } catch (thrown) {
            // Another answer to the same request won the race: the first one is kept.
            if (thrown instanceof TerminalError) return { requestId: answer.id, recorded: false };
            throw thrown;
          }
          return { requestId: answer.id, recorded: true };
        },
      ),

      requests: handlers.workflow.shared(
        async (ctx: WorkflowSharedContext): Promise<AwaitedRequest[]> =>
          (await ctx.get<AwaitedRequest[]>(WAITING_STATE)) ?? [],
      ),
    },
  });
}
