// The durability seam on Restate: a step is `ctx.run` under the step's key; a question waits on
// the workflow's durable promise named after its request id, until the request's deadline.
import {
  RestatePromise,
  type RunOptions,
  TimeoutError,
  type WorkflowContext,
} from "@restatedev/restate-sdk";
import {
  type Answer,
  type AwaitedRequest,
  type Durability,
  type DurableStep,
  expiredAnswer,
} from "@toolnexus/core";

/** Options of {@link restateDurability}. */
export interface RestateDurabilityOptions {
  /**
   * Retries of a step whose work throws (a model call that failed): Restate's `ctx.run` options.
   * Default: up to 5 attempts, then the run fails. A tool never throws (its errors are results).
   */
  retry?: Pick<
    RunOptions<unknown>,
    "maxRetryAttempts" | "maxRetryDuration" | "initialRetryInterval" | "maxRetryInterval"
  >;
}

/** The state key under which the run lists the requests it waits for (read by `requests`). */
export const WAITING_STATE = "toolnexus.waiting";

/** The durable promise that carries the answer to a request. */
export function answerPromiseName(requestId: string): string {
  return `answer:${requestId}`;
}

// Executions of a step's work in this process, by invocation and step key: a step retried in the
// same process (its work threw, or the attempt was cut) counts up from here.
const executed = new Map<string, number>();

/**
 * The {@link Durability} of one execution of a Restate workflow handler. Each tool step is two
 * journal entries: a marker, then the call; a replay that finds the marker recorded but not the
 * call knows an earlier attempt may have started the tool, and gives it `ctx.attempt` 2 or more.
 */
export function restateDurability(
  ctx: WorkflowContext,
  options: RestateDurabilityOptions = {},
): Durability {
  const runOptions: RunOptions<unknown> = { maxRetryAttempts: 5, ...options.retry };
  const invocation = String(ctx.request().id);
  // One step at a time, in the order the loop asks for them: the SDK's handler awaits one Restate
  // promise at a time (two awaited at once fail the attempt with "awaitNext already pending"),
  // and a replay finds the journal's entries in the same order.
  let tail: Promise<unknown> = Promise.resolve();
  function serial<T>(work: () => Promise<T>): Promise<T> {
    const next = tail.then(work);
    tail = next.catch(() => {});
    return next;
  }

  function counted<T>(key: string, floor: number, work: (attempt: number) => Promise<T>) {
    return async () => {
      const id = `${invocation}/${key}`;
      const here = (executed.get(id) ?? 0) + 1;
      executed.set(id, here);
      return work(Math.max(here, floor));
    };
  }

  async function toolStep<T>(key: string, work: (attempt: number) => Promise<T>): Promise<T> {
    let fresh = false;
    await ctx.run(`${key}#start`, () => {
      fresh = true;
      return 1;
    });
    const result = await ctx.run(
      key,
      counted(key, fresh ? 1 : 2, work),
      runOptions as RunOptions<T>,
    );
    executed.delete(`${invocation}/${key}`);
    return result;
  }

  async function modelStep<T>(key: string, work: (attempt: number) => Promise<T>): Promise<T> {
    const result = await ctx.run(key, counted(key, 1, work), runOptions as RunOptions<T>);
    executed.delete(`${invocation}/${key}`);
    return result;
  }

  return {
    step<T>(step: DurableStep, work: (attempt: number) => Promise<T>): Promise<T> {
      return serial(() =>
        step.kind === "tool" ? toolStep(step.key, work) : modelStep(step.key, work),
      );
    },

    async answers(requests: readonly AwaitedRequest[]): Promise<Answer[]> {
      ctx.set(WAITING_STATE, requests);
      const now = await ctx.date.now();
      const waits = requests.map((awaited) => answerOf(ctx, awaited, now));
      // The first answer (or expiry) continues the run; the loop asks again for the rest.
      const first = await (waits.length === 1 ? waits[0]! : RestatePromise.race(waits));
      ctx.clear(WAITING_STATE);
      return [first];
    },
  };
}

/** The answer to one request, or its expiry at its deadline. */
function answerOf(
  ctx: WorkflowContext,
  awaited: AwaitedRequest,
  now: number,
): RestatePromise<Answer> {
  // The `answer` handler checked the answer before it resolved the promise.
  const answer = ctx.promise<Answer>(answerPromiseName(awaited.request.id)).get();
  if (awaited.deadline === undefined) return answer;
  const left = Math.max(0, Date.parse(awaited.deadline) - now);
  return answer.orTimeout(left).map((value, failure) => {
    if (failure instanceof TimeoutError) return expiredAnswer(awaited);
    if (failure !== undefined) throw failure;
    return value as Answer;
  });
}
