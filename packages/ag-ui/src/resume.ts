// A RunAgentInput with `resume`: every entry answers one interrupt (a toolnexus request) of the
// same halted run. All of them are checked before any is recorded, so a bad payload records
// nothing; each is recorded with `by` = the caller's id (never the body's), and the stream then
// follows the run from the halt those interrupts came from.
import type { ResumeEntry } from "@ag-ui/core";
import {
  type Answer,
  AnswerConflictError,
  MAX_EVENTS_PER_READ,
  type RequestInfo,
  type RunInfo,
  type RunStore,
  SuspensionNotFoundError,
  WireFormatError,
} from "@toolnexus/core";
import { type RunAccess, type WebAccess, type WebCaller, WebError } from "@toolnexus/web";
import { answerOfResume } from "./interrupts.js";

export interface ResumeContext<C extends WebCaller> {
  store: RunStore;
  caller: C;
  allow: ((caller: C, access: WebAccess) => unknown) | undefined;
}

/** What the stream follows after the answers are recorded. */
export interface Resumed {
  runId: string;
  /** The offset of the `suspended` event that asked these questions: follow after it. */
  after: number;
}

function accessTo(action: "answer" | "follow", run: RunInfo, info?: RequestInfo): RunAccess {
  const access: RunAccess = { action, runId: run.runId };
  if (run.sessionId !== undefined) access.sessionId = run.sessionId;
  if (run.agent !== undefined) access.agent = run.agent;
  if (info !== undefined) {
    access.requestId = info.request.id;
    access.kind = info.request.kind;
  }
  return access;
}

async function permits<C extends WebCaller>(
  ctx: ResumeContext<C>,
  access: RunAccess,
): Promise<boolean> {
  return ctx.allow !== undefined && (await ctx.allow(ctx.caller, access)) === true;
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
  ctx: ResumeContext<C>,
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
    if (!(await permits(ctx, accessTo("answer", owner, info)))) throw unknownInterrupt(at);
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
  if (!(await permits(ctx, accessTo("follow", run)))) throw unknownInterrupt("resume");

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
      await store.answer(answer, { by: caller.id });
    } catch (error) {
      // Cancelling an interrupt someone else answered, or one that expired, asks for nothing.
      if (error instanceof AnswerConflictError && entries[i]!.status === "cancelled") continue;
      if (error instanceof AnswerConflictError) {
        const message =
          error.reason === "answered"
            ? "this interrupt already has a different answer; an answer cannot be changed (cancel it to go on)"
            : error.reason === "expired"
              ? "this interrupt expired; cancel it to go on"
              : "this interrupt's run was cancelled; nothing waits for the answer";
        throw new WebError(409, "answer_conflict", `resume[${i}]: ${message}`, {
          reason: error.reason,
        });
      }
      if (error instanceof SuspensionNotFoundError) throw unknownInterrupt(`resume[${i}]`);
      if (error instanceof WireFormatError) {
        throw new WebError(400, "bad_request", `resume[${i}]: the answer is malformed`, {
          issues: [...error.issues],
        });
      }
      throw error;
    }
  }
  return { runId: run.runId, after };
}
