// A RunAgentInput with `resume`: every entry answers one interrupt (a toolnexus request) of the
// same halted run. All of them are checked before any is recorded, so a refused entry records
// nothing (resumeRun says what a change during the recording can still do); each is recorded
// with `by` = the caller's id (never the body's), and the stream then follows the run from the
// halt those interrupts came from.
import type { ResumeEntry } from "@ag-ui/core";
import {
  type Answer,
  checkId,
  MAX_EVENTS_PER_READ,
  type RequestInfo,
  type RunInfo,
  type RunStore,
} from "@toolnexus/core";
import {
  type AccessCheck,
  answerConflict,
  answerConflictOf,
  answerStoreRefusal,
  checkAnswer,
  permits,
  recordAnswer,
  runAccessOf,
  type WebCaller,
  WebError,
} from "@toolnexus/web";
import { answerOfResume } from "./interrupts.js";

/** What the stream follows after the answers are recorded. */
export interface Resumed {
  runId: string;
  /** The offset of the `suspended` event that asked these questions: follow after it. */
  after: number;
}

const unknownInterrupt = (at: string) =>
  new WebError(404, "not_found", `${at}: no interrupt with this id (or it is not yours to answer)`);

/** The offset of the last `suspended` event that asked any of `ids` (0 when none is found). */
async function haltOffset(
  store: RunStore,
  runId: string,
  ids: ReadonlySet<string>,
): Promise<number> {
  let after = 0;
  let found = 0;
  for (;;) {
    const page = await store.readEvents!(runId, after, MAX_EVENTS_PER_READ);
    for (const event of page) {
      after = event.offset;
      const requests = event.type === "suspended" ? event.data.requests : undefined;
      if (
        Array.isArray(requests) &&
        requests.some((r) => ids.has((r as { id?: string }).id ?? ""))
      ) {
        found = event.offset;
      }
    }
    if (page.length < MAX_EVENTS_PER_READ) return found;
  }
}

/** The request an interrupt id names; a store's refusal of the id is a 400, not a 500. */
async function requestOf(store: RunStore, id: string): Promise<RequestInfo | undefined> {
  try {
    return await store.getRequest(id);
  } catch (error) {
    throw answerStoreRefusal(error, "the interrupt id") ?? error;
  }
}

/** `resume[i]` for each index, for a message. */
const entriesNamed = (indexes: readonly number[]) => indexes.map((i) => `resume[${i}]`).join(", ");

/**
 * Checks every entry, then records every answer, and says where to follow from. Nothing is
 * recorded unless every entry passes: the caller may answer it, it fits, and recording it would
 * not be refused (an approver the policy refuses, an answer too large, a different answer
 * already given). Only a change between the checks and the recording (another process answering
 * one of these requests, the run cancelled, a deadline passing, the store failing) can refuse an
 * entry after earlier ones were recorded; the refusal then names the entries already recorded.
 */
export async function resumeRun<C extends WebCaller>(
  ctx: AccessCheck<C>,
  entries: readonly ResumeEntry[],
): Promise<Resumed> {
  const { store, caller } = ctx;
  const infos: RequestInfo[] = [];
  let run: RunInfo | undefined;
  for (const [i, entry] of entries.entries()) {
    const at = `resume[${i}]`;
    const info = await requestOf(store, entry.interruptId);
    const owner =
      info === undefined
        ? undefined
        : run?.runId === info.runId
          ? run
          : await store.getRun(info.runId);
    if (info === undefined || owner === undefined) throw unknownInterrupt(at);
    if (!(await permits(ctx, runAccessOf("answer", owner, info)))) throw unknownInterrupt(at);
    if (run !== undefined && run.runId !== owner.runId) {
      throw new WebError(
        400,
        "bad_request",
        "the resume entries answer interrupts of different runs; resume one run at a time",
      );
    }
    run = owner;
    infos.push(info);
  }
  if (run === undefined) throw new WebError(400, "bad_request", "resume is empty");
  if (!(await permits(ctx, runAccessOf("follow", run)))) throw unknownInterrupt("resume");

  // AG-UI resumes a halt as a whole: every interrupt still open is answered or cancelled.
  const answered = new Set(entries.map((entry) => entry.interruptId));
  const open = run.requests.filter((r) => r.state === "waiting" && !answered.has(r.request.id));
  if (open.length > 0) {
    throw new WebError(400, "bad_request", "the resume leaves interrupts of this run unanswered", {
      issues: open.map((r) => `${r.request.id}: still open; resolve or cancel it`),
    });
  }
  const answers: Answer[] = [];
  const issues: string[] = [];
  for (const [i, entry] of entries.entries()) {
    try {
      answers.push(answerOfResume(entry, infos[i]!, `resume[${i}]`));
    } catch (error) {
      if (!(error instanceof WebError)) throw error;
      issues.push(...(error.issues ?? [error.message]));
    }
  }
  if (issues.length > 0) {
    throw new WebError(400, "invalid_answer", "a resume payload does not fit its interrupt", {
      issues,
    });
  }

  // Everything recording would refuse, for every entry, before the first is recorded. The
  // caller's id is the host's (identify): one no store can keep is the host's bug, a 500.
  checkId(caller.id, "by");
  const toRecord: number[] = [];
  for (const [i, answer] of answers.entries()) {
    let verdict: ReturnType<typeof answerConflictOf>;
    try {
      checkAnswer(infos[i]!.request, answer, caller.id);
      verdict = answerConflictOf(infos[i]!, run, answer);
    } catch (error) {
      throw error instanceof WebError ? refusalOf(error, i, []) : error;
    }
    if (verdict === "duplicate") continue; // recorded already, the same: nothing to do
    // Cancelling an interrupt someone else answered, or one that expired, asks for nothing.
    if (verdict !== undefined && entries[i]!.status === "cancelled") continue;
    if (verdict !== undefined) throw refusalOf(answerConflict(verdict), i, []);
    toRecord.push(i);
  }

  const after = await haltOffset(store, run.runId, answered);
  const recorded: number[] = [];
  for (const i of toRecord) {
    try {
      await recordAnswer(store, infos[i]!.request, answers[i]!, caller.id);
    } catch (error) {
      const refusal =
        error instanceof WebError ? error : answerStoreRefusal(error, "the interrupt id");
      if (refusal === undefined) throw error;
      // Answered elsewhere since the check: a cancel still asks for nothing.
      if (refusal.code === "answer_conflict" && entries[i]!.status === "cancelled") continue;
      throw refusalOf(refusal, i, recorded);
    }
    recorded.push(i);
  }
  return { runId: run.runId, after };
}

/** `error` as the refusal of entry `i`, saying which entries were recorded before it. */
function refusalOf(error: WebError, i: number, recorded: readonly number[]): WebError {
  const hint = error.code === "answer_conflict" ? " (cancel the interrupt to go on)" : "";
  const before =
    recorded.length === 0
      ? ""
      : `; it changed while this resume was recorded, and ${entriesNamed(recorded)} ${recorded.length === 1 ? "was" : "were"} recorded before it`;
  return new WebError(error.status, error.code, `resume[${i}]: ${error.message}${hint}${before}`, {
    ...(error.issues === undefined ? {} : { issues: error.issues }),
    ...(error.reason === undefined ? {} : { reason: error.reason }),
  });
}
