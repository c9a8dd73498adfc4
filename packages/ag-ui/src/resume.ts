// A RunAgentInput with `resume`: every entry answers one interrupt (a toolnexus request) of the
// same halted run. All of them are checked before any is recorded, so a bad payload records
// nothing; each is recorded with `by` = the caller's id (never the body's), and the stream then
// follows the run from the halt those interrupts came from.
import type { ResumeEntry } from "@ag-ui/core";
import {
  type Answer,
  MAX_EVENTS_PER_READ,
  type RequestInfo,
  type RunInfo,
  type RunStore,
} from "@toolnexus/core";
import {
  type AccessCheck,
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

/** Checks every entry, records every answer, and says where to follow from. */
export async function resumeRun<C extends WebCaller>(
  ctx: AccessCheck<C>,
  entries: readonly ResumeEntry[],
): Promise<Resumed> {
  const { store, caller } = ctx;
  const infos: RequestInfo[] = [];
  let run: RunInfo | undefined;
  for (const [i, entry] of entries.entries()) {
    const at = `resume[${i}]`;
    const info = await store.getRequest(entry.interruptId);
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

  const after = await haltOffset(store, run.runId, answered);
  for (const [i, answer] of answers.entries()) {
    try {
      await recordAnswer(store, infos[i]!.request, answer, caller.id);
    } catch (error) {
      if (!(error instanceof WebError)) throw error;
      // Cancelling an interrupt someone else answered, or one that expired, asks for nothing.
      if (error.code === "answer_conflict" && entries[i]!.status === "cancelled") continue;
      const hint = error.code === "answer_conflict" ? " (cancel the interrupt to go on)" : "";
      throw new WebError(error.status, error.code, `resume[${i}]: ${error.message}${hint}`, {
        ...(error.issues === undefined ? {} : { issues: error.issues }),
        ...(error.reason === undefined ? {} : { reason: error.reason }),
      });
    }
  }
  return { runId: run.runId, after };
}
