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

/** A step the loop asked for, waiting for its batch. */
interface Queued {
  step: DurableStep;
  work: (attempt: number) => Promise<unknown>;
  resolve(value: unknown): void;
  reject(reason: unknown): void;
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

  function counted<T>(key: string, floor: number, work: (attempt: number) => Promise<T>) {
    return async () => {
      const id = `${invocation}/${key}`;
      const here = (executed.get(id) ?? 0) + 1;
      executed.set(id, here);
      return work(Math.max(here, floor));
    };
  }

  // The SDK's handler may await one Restate promise at a time (two awaited at once fail the
  // attempt with "awaitNext already pending"), but one combinator over several `ctx.run`s runs
  // their work at once. So steps asked for together (a turn's calls, which the loop starts in
  // one go, up to maxConcurrentTools) form a batch: its markers are awaited as one
  // RestatePromise.all, then its calls as one allSettled. Batches run one after the other, and
  // the journal gets each batch's entries in the order the loop asked for them, so a replay,
  // which asks in the same order, finds them in that order.
  let queued: Queued[] = [];
  let tail: Promise<void> = Promise.resolve();

  async function runBatch(batch: Queued[]): Promise<void> {
    const fresh = new Set<string>();
    const markers = batch
      .filter(({ step }) => step.kind === "tool")
      .map(({ step }) =>
        ctx.run(`${step.key}#start`, () => {
          fresh.add(step.key);
          return 1;
        }),
      );
    if (markers.length > 0) await RestatePromise.all(markers);
    const runs = batch.map(({ step, work }) => {
      // A tool step whose marker was already in the journal may have started before a crash.
      const floor = step.kind === "tool" && !fresh.has(step.key) ? 2 : 1;
      return ctx.run(step.key, counted(step.key, floor, work), runOptions);
    });
    const settled = await RestatePromise.allSettled(runs);
    for (let i = 0; i < batch.length; i++) {
      const { step, resolve, reject } = batch[i]!;
      executed.delete(`${invocation}/${step.key}`);
      const outcome = settled[i]!;
      if (outcome.status === "fulfilled") resolve(outcome.value);
      else reject(outcome.reason);
    }
  }

  function enqueue(entry: Queued): void {
    queued.push(entry);
    if (queued.length > 1) return;
    // The batch closes once the loop has asked for everything it starts together.
    queueMicrotask(() => {
      const batch = queued;
      queued = [];
      tail = tail
        .then(() => runBatch(batch))
        .catch((thrown: unknown) => {
          // The attempt is ending (a suspension, a cancel): every step of the batch learns it.
          for (const { reject } of batch) reject(thrown);
        });
    });
  }

  return {
    step<T>(step: DurableStep, work: (attempt: number) => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        enqueue({ step, work, resolve: resolve as (value: unknown) => void, reject });
      });
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
