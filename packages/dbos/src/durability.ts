// The durability seam on DBOS Transact: a step is `DBOS.runStep` named by its key (a replay
// whose steps come in another order fails with DBOS's DBOSUnexpectedStepError instead of
// reading the wrong result), and a halt waits on `DBOS.recv` for answers sent to the run.
import { DBOS } from "@dbos-inc/dbos-sdk";
import {
  type Answer,
  type AwaitedRequest,
  type Durability,
  type DurableStep,
  expiredAnswer,
  parseAnswer,
} from "@toolnexus/core";
import { ANSWER_TOPIC, WAITING_EVENT } from "./names.js";

/** How long one `recv` waits when no request has a deadline (then it waits again). */
const IDLE_WAIT_SECONDS = 24 * 60 * 60;

/** How often the workflow was dispatched so far (a recovery after a crash dispatches it again). */
async function dispatches(): Promise<number> {
  const status = await DBOS.getWorkflowStatus(DBOS.workflowID!);
  return status?.recoveryAttempts ?? 1;
}

/**
 * The `Durability` of one execution of a DBOS workflow: make it inside the workflow function and
 * pass it to `client.run(prompt, { runId: DBOS.workflowID, durability })`. `registerAgent` does
 * both; call this yourself to run a toolnexus agent inside a workflow of your own.
 *
 * A tool call's attempt (`ctx.attempt`) counts the dispatches of the workflow since the call
 * first started: DBOS records no step until it finishes, so a small step records when the call
 * began, and a call re-run after a crash sees attempt 2.
 */
export interface DbosDurabilityOptions {
  /**
   * Called when DBOS cancels the workflow while a step runs (`DBOS.cancelWorkflow`; DBOS notices
   * within about a second): abort the run's signal here so the tool in flight stops.
   * `registerAgent` does.
   */
  onCancel?: (reason: unknown) => void;
}

export function dbosDurability(options: DbosDurabilityOptions = {}): Durability {
  if (!DBOS.isInWorkflow()) {
    throw new TypeError("dbosDurability() must be called inside a DBOS workflow");
  }
  // The dispatch this execution runs in, read once (inside a step, so it is not recorded).
  let current: number | undefined;
  const dispatch = async () => {
    current ??= await dispatches();
    return current;
  };
  // Answers received before the run asked for them (an answer sent early): recv results replay
  // in the same order, so a replay rebuilds the same map.
  const early = new Map<string, Answer>();
  const used = new Set<string>();

  // Inside a step, DBOS's cancel signal (it is only there) reaches the caller's onCancel.
  const watched = async <T>(work: () => Promise<T>): Promise<T> => {
    const cancelled = DBOS.stepStatus?.cancelSignal;
    const onCancel = options.onCancel;
    if (cancelled === undefined || onCancel === undefined) return work();
    const listener = () => onCancel(cancelled.reason);
    if (cancelled.aborted) listener();
    cancelled.addEventListener("abort", listener, { once: true });
    try {
      return await work();
    } finally {
      cancelled.removeEventListener("abort", listener);
    }
  };

  return {
    async step<T>(step: DurableStep, work: (attempt: number) => Promise<T>): Promise<T> {
      if (step.kind !== "tool") {
        return DBOS.runStep(() => watched(() => work(1)), { name: step.key });
      }
      // DBOS numbers a workflow's operations in the order they are called, and the loop starts a
      // turn's calls together: both steps of a call are called here, before any await, so a
      // replay numbers them the same whichever call's records come back first.
      const began = DBOS.runStep(dispatch, { name: `${step.key}#began` });
      return DBOS.runStep(
        () => watched(async () => work(Math.max(1, (await dispatch()) - (await began) + 1))),
        { name: step.key },
      );
    },

    async answers(requests: readonly AwaitedRequest[]): Promise<Answer[]> {
      await DBOS.setEvent(WAITING_EVENT, requests);
      for (;;) {
        const ready = requests.flatMap(({ request }) => {
          const answer = early.get(request.id);
          if (answer === undefined) return [];
          early.delete(request.id);
          used.add(request.id);
          return [answer];
        });
        if (ready.length > 0) {
          const answered = new Set(ready.map((answer) => answer.id));
          await DBOS.setEvent(
            WAITING_EVENT,
            requests.filter(({ request }) => !answered.has(request.id)),
          );
          return ready;
        }
        const deadline = Math.min(
          ...requests.map(({ deadline }) =>
            deadline === undefined ? Infinity : Date.parse(deadline),
          ),
        );
        const message = await DBOS.recv<unknown>(
          ANSWER_TOPIC,
          Number.isFinite(deadline)
            ? { deadlineEpochMS: deadline }
            : { timeoutSeconds: IDLE_WAIT_SECONDS },
        );
        if (message === null) {
          const now = await DBOS.now();
          const expired = requests.filter(
            ({ deadline }) => deadline !== undefined && Date.parse(deadline) <= now,
          );
          if (expired.length > 0) {
            for (const { request } of expired) used.add(request.id);
            const left = requests.filter((awaited) => !expired.includes(awaited));
            await DBOS.setEvent(WAITING_EVENT, left);
            return expired.map(expiredAnswer);
          }
          continue;
        }
        const answer = readAnswer(message);
        // The first answer to a request wins; `answer()` sends each request's answer once
        // (DBOS drops a second send with the same idempotency key), this catches the rest.
        if (answer !== undefined && !used.has(answer.id) && !early.has(answer.id)) {
          early.set(answer.id, answer);
        }
      }
    },
  };
}

/** An answer from a message, or undefined for one that is not (it is recorded, and skipped). */
function readAnswer(message: unknown): Answer | undefined {
  try {
    return parseAnswer(message);
  } catch {
    DBOS.logger.warn("toolnexus: a message on the answer topic is not an Answer; skipped");
    return undefined;
  }
}
