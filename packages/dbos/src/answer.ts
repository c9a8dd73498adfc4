// Answering a run from any process: the answer goes to the run's workflow with `send`, on the
// answer topic, keyed by its request id (DBOS keeps the first message per key and drops the
// rest). A process that did not launch DBOS uses a DBOSClient; one that did may pass DBOS.
import { Error as DbosErrors } from "@dbos-inc/dbos-sdk";
import {
  type Answer,
  type AwaitedRequest,
  checkDurableAnswerSize,
  MAX_DURABLE_ANSWER_CHARS,
  parseAnswer,
  type Request,
  RunNotFoundError,
} from "@toolnexus/core";
import { checkDbosId } from "./ids.js";
import { ANSWER_TOPIC, WAITING_EVENT } from "./names.js";

/**
 * What sends and reads: `DBOS` (in a process that launched it) or a `DBOSClient`
 * (`await DBOSClient.create({ systemDatabaseUrl })`) anywhere else.
 */
export interface DbosMessenger {
  send<T>(
    destinationID: string,
    message: T,
    topic?: string,
    idempotencyKey?: string,
  ): Promise<void>;
  getEvent<T>(workflowID: string, key: string, timeoutSeconds?: number): Promise<T | null>;
}

/** Largest answer `answer()` sends, as JSON (a form's data, not a file): core's cap for engines. */
export const MAX_ANSWER_CHARS = MAX_DURABLE_ANSWER_CHARS;

export interface DbosAnswerOptions {
  /**
   * Checks the answer against the request it answers when the run already waits for it (throw
   * to refuse it): for example `@toolnexus/web`'s schema check of `request.data.schema`.
   * An answer sent before the run asks is sent unchecked.
   */
  check?: (request: Request, answer: Answer) => void;
}

/** What `answer()` did. */
export interface DbosAnswerReceipt {
  runId: string;
  requestId: string;
  /** The run was waiting for this request when the answer was sent (otherwise it is early). */
  waiting: boolean;
}

/** How long to wait for a run's questions (`waitingRequests`). */
export interface WaitingOptions {
  /** Wait up to this long for the run to ask (default 0: read once). */
  waitSeconds?: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The requests run `runId` waits for now: none when it waits for nothing or does not exist.
 * With `waitSeconds`, waits until it asks, up to that long. A run id core's `checkId` refuses,
 * or one of more than 1,024 bytes of UTF-8, throws an `InvalidIdError` (`invalid_id`) before
 * the database is read.
 */
export async function waitingRequests(
  via: DbosMessenger,
  runId: string,
  options: WaitingOptions = {},
): Promise<AwaitedRequest[]> {
  checkDbosId(runId, "runId");
  const until = Date.now() + Math.max(0, options.waitSeconds ?? 0) * 1000;
  for (;;) {
    const requests = (await via.getEvent<AwaitedRequest[]>(runId, WAITING_EVENT, 0)) ?? [];
    const left = until - Date.now();
    if (requests.length > 0 || left <= 0) return requests;
    // DBOS's getEvent waits for the event to exist; once it does (an empty list between two
    // questions), read it again after a short pause.
    const existed = await via.getEvent<AwaitedRequest[]>(
      runId,
      WAITING_EVENT,
      Math.min(left, 1000) / 1000,
    );
    if (existed !== null) await pause(Math.min(left, 25));
  }
}

/**
 * Sends `answer` to run `runId` (a DBOS workflow of `registerAgent`), from any process. The
 * first answer to a request is the one the run applies: a second answer to the same request is
 * dropped by DBOS and never reaches the run. An answer may come before the run asks its question
 * (a request id the tool chose, say): the run keeps it until it asks.
 *
 * Throws a `WireFormatError` for an answer that is not one, an `InvalidIdError` (`invalid_id`)
 * for a run id or answer id core's `checkId` refuses (more than `MAX_STORE_ID_CHARS`, a NUL, an
 * unpaired surrogate) or of more than 1,024 bytes of UTF-8, a `ToolnexusError`
 * (`answer_too_large`) past {@link MAX_ANSWER_CHARS},
 * all before anything is read or sent; a `RunNotFoundError` when no workflow `runId` exists, and
 * what `options.check` throws.
 */
export async function answer(
  via: DbosMessenger,
  runId: string,
  given: Answer,
  options: DbosAnswerOptions = {},
): Promise<DbosAnswerReceipt> {
  checkDbosId(runId, "runId");
  const parsed = parseAnswer(given);
  checkDbosId(parsed.id, "answer.id");
  checkDurableAnswerSize(parsed);
  const awaited = (await waitingRequests(via, runId)).find(
    ({ request }) => request.id === parsed.id,
  );
  if (awaited !== undefined) options.check?.(awaited.request, parsed);
  try {
    await via.send(runId, parsed, ANSWER_TOPIC, parsed.id);
  } catch (error) {
    // The send's foreign key on the workflow's row.
    if (error instanceof DbosErrors.DBOSNonExistentWorkflowError) {
      throw new RunNotFoundError(runId);
    }
    throw error;
  }
  return { runId, requestId: parsed.id, waiting: awaited !== undefined };
}
