// Durable runs at the client's level: starting one under a lease, continuing a claimed one,
// recording answers, and "continue this run here" (waiting while another worker holds it).
import {
  type Answer,
  type AnswerConflictError,
  type AnswerReceipt,
  type Checkpoint,
  type ClaimedRun,
  checkApprover,
  copyWireData,
  parseAnswer,
  type RunInfo,
  RunNotFoundError,
  SuspensionNotFoundError,
  ToolnexusError,
  WireFormatError,
} from "@toolnexus/core";
import type { ResolvedConfig } from "./config.js";
import { continueFrom } from "./continue-run.js";
import { RunCancelledError } from "./errors.js";
import { traced } from "./instrumentation.js";
import { errorInfo, Journal, retryDelayMs } from "./journal.js";
import { LeaseDurability } from "./lease-durability.js";
import { type CheckedCalls, checkBeforeClaim, checkClaimed, refusal } from "./preflight.js";
import { reopened } from "./redeploy.js";
import { Run, restoredStart } from "./run-state.js";
import { sleep } from "./store-answers.js";
import { loop } from "./turn-loop.js";
import type { PendingResult, RunEvent, RunResult } from "./types.js";

/** Runs `body` under the run's lease: on an error the run is given back, never lost. */
async function underLease(
  run: Run,
  journal: Journal,
  body: () => Promise<RunResult>,
): Promise<RunResult> {
  run.attach(journal);
  try {
    return await body();
  } catch (thrown) {
    const cancel = journal.cancel;
    if (cancel !== undefined && journal.lost === undefined) {
      // Someone cancelled the run (client.cancel): it ends cancelled, with who and why.
      try {
        await journal.finish({ state: "cancelled", cancel });
      } catch {
        // Given back instead: the store ends a run cancelled while it ran when it comes back.
        await journal.release();
      }
      throw thrown instanceof RunCancelledError && thrown.cancel !== undefined
        ? thrown
        : new RunCancelledError(run.messages, run.runId, thrown, cancel);
    }
    // A cancelled run (or a worker shutting down) goes back as is; any other error is recorded
    // and the run is retried after a delay. A lost lease belongs to another worker now.
    await journal.release(thrown instanceof RunCancelledError ? undefined : errorInfo(thrown));
    throw thrown;
  } finally {
    journal.stop();
  }
}

/** A fresh run made durable from its first step. */
export async function startDurable(
  config: ResolvedConfig,
  run: Run,
  signal: AbortSignal | undefined,
): Promise<RunResult> {
  if (run.runExtra !== undefined) {
    // A durable run may continue in another process: its `extra` must survive the store.
    const copied = copyWireData(run.runExtra, "extra");
    if ("issue" in copied) {
      const { path, message } = copied.issue;
      throw new WireFormatError("extra", [
        {
          field: "extra",
          path,
          message: `"${path}" ${message}; a durable run's extra is stored as JSON (keep handles in the client's extra)`,
        },
      ]);
    }
  }
  const lease = await config.runs.start(run.checkpoint([]), config.owner, config.leaseMs);
  const journal = new Journal(config.runs, lease, config.leaseMs, 0, () => run.messages);
  journal.steps = new LeaseDurability(journal, [], (id) => attemptOf(run, id), config.durability);
  const result = await underLease(run, journal, () => loop(run));
  if (run.readyAfterHalt) return settleRun(config, run.runId, signal, undefined);
  return result;
}

/**
 * Continue a claimed run here. With `follow`, a halt that found answers already recorded is
 * continued at once (a caller waiting for this run's result); a worker leaves it to the pool.
 */
export async function continueClaimed(
  config: ResolvedConfig,
  claimed: ClaimedRun,
  signal: AbortSignal | undefined,
  sink: ((event: RunEvent) => void) | undefined,
  follow: boolean,
  read?: RunInfo,
  checked?: CheckedCalls,
): Promise<RunResult> {
  const { checkpoint } = claimed;
  if ((checkpoint.agent ?? null) !== (config.agent ?? null)) {
    // Another agent's run (they share a store): give it back untouched for its own client.
    await config.runs.release(claimed.lease);
    throw new ToolnexusError(
      "wrong_agent",
      `run ${checkpoint.runId} belongs to agent ${JSON.stringify(checkpoint.agent ?? null)}, not to this client's ${JSON.stringify(config.agent ?? null)}; continue it with that agent's client`,
    );
  }
  // Answers the checkpoint no longer lists are not in `claimed.answers`: ask the store, unless
  // the read made just before the claim saw this same halt (its requests are then the same ones,
  // only answered since, and the calls `checked` on that read need no second check).
  const same = read !== undefined && sameHalt(read.checkpoint, checkpoint);
  const requests = same
    ? read!.requests
    : ((await config.runs.getRun(checkpoint.runId))?.requests ?? []);
  let resolved: CheckedCalls | undefined;
  try {
    resolved = checkClaimed(config, claimed, requests, same ? checked : undefined);
  } catch (thrown) {
    // Given back with the error, so a worker backs off and ends it failed after maxFailures;
    // recorded as a refusal, so the claim does not count as an attempt of the calls.
    const retryAt = Date.now() + retryDelayMs(claimed.failures + 1);
    await config.runs.release(
      claimed.lease,
      { ...errorInfo(thrown), code: refusal(thrown) },
      retryAt,
    );
    throw thrown;
  }
  const run = new Run(config, restoredStart(checkpoint), signal, sink, false);
  if (config.instrumentation !== undefined) {
    const answers = new Map(claimed.answers.map((answer) => [answer.id, answer]));
    run.trace = config.instrumentation.startRun({
      runId: run.runId,
      sessionId: run.sessionId,
      agent: config.agent,
      model: config.model.id,
      provider: config.model.provider,
      kind: "continue",
      carrier: checkpoint.trace,
      pending: checkpoint.pending.map(({ request }) => {
        const answer = answers.get(request.id);
        return answer === undefined ? { request } : { request, answer };
      }),
      messages: run.messages,
    });
  }
  const journal = new Journal(
    config.runs,
    claimed.lease,
    config.leaseMs,
    claimed.failures,
    () => run.messages,
  );
  journal.steps = new LeaseDurability(
    journal,
    claimed.journal,
    (id) => attemptOf(run, id),
    config.durability,
  );
  const result = await traced(
    run.trace,
    underLease(run, journal, () => continueFrom(run, reopened(claimed, requests), resolved)),
  );
  if (follow && run.readyAfterHalt) return settleRun(config, run.runId, signal, sink);
  return result;
}

/** A call's attempt as the claims since the run's checkpoint count it (continue-run.ts). */
function attemptOf(run: Run, callId: string): number {
  return run.attempts?.get(callId) ?? 1;
}

/**
 * Whether two copies of a run's checkpoint are of the same halt: a run that moved on has a
 * longer transcript or other pending requests.
 */
function sameHalt(before: Checkpoint | undefined, now: Checkpoint): boolean {
  if (before === undefined || before.turns !== now.turns) return false;
  if (before.messages.length !== now.messages.length) return false;
  if (before.pending.length !== now.pending.length) return false;
  for (let i = 0; i < now.pending.length; i++) {
    if (before.pending[i]!.request.id !== now.pending[i]!.request.id) return false;
  }
  return true;
}

/** A halted run's pending result, rebuilt from the store (its answers were not all in yet). */
function pendingResult(config: ResolvedConfig, info: RunInfo): PendingResult | undefined {
  const checkpoint = info.checkpoint;
  if (checkpoint === undefined || checkpoint.pending.length === 0) return undefined;
  const pendings = checkpoint.pending.map((call) => call.request);
  return {
    status: "pending",
    pending: pendings[0]!,
    pendings,
    text: pendings[0]!.prompt,
    messages: checkpoint.messages,
    toolCalls: [],
    turns: checkpoint.turns,
    usage: checkpoint.usage,
    model: config.model.id,
    runId: checkpoint.runId,
    sessionId: checkpoint.sessionId,
  };
}

/**
 * Continue the run `runId` here and return where it ends: take its lease when it can
 * continue; while another worker holds it, wait (its own result is returned once it is done);
 * a run still waiting for answers returns `pending`; a finished one its stored result.
 */
export async function settleRun(
  config: ResolvedConfig,
  runId: string,
  signal: AbortSignal | undefined,
  sink: ((event: RunEvent) => void) | undefined,
): Promise<RunResult> {
  const store = config.runs;
  const stored = await store.getRun(runId);
  if (stored !== undefined && (stored.agent ?? null) !== (config.agent ?? null)) {
    throw new ToolnexusError(
      "wrong_agent",
      `run ${runId} belongs to agent ${JSON.stringify(stored.agent ?? null)}, not to this client's ${JSON.stringify(config.agent ?? null)}; continue it with that agent's client`,
    );
  }
  // Refuse a run that cannot continue here before taking its lease: nothing changes, and a
  // refused attempt does not count as an attempt of its calls (`ctx.attempt`).
  let checked: CheckedCalls | undefined;
  if (stored?.checkpoint !== undefined && stored.state !== "done" && stored.state !== "cancelled") {
    checked = checkBeforeClaim(
      config,
      stored.checkpoint,
      stored.requests,
      stored.state === "failed",
    );
  }
  let pause = 10;
  // The read the claim follows, while nothing else was read after it.
  let read = stored;
  for (;;) {
    if (signal?.aborted) throw new RunCancelledError([], runId, signal.reason);
    const claimed = await store.claim({ owner: config.owner, leaseMs: config.leaseMs, runId });
    if (claimed !== undefined) {
      return continueClaimed(config, claimed, signal, sink, true, read, checked);
    }
    const info = await store.getRun(runId);
    read = undefined;
    if (info === undefined) throw new RunNotFoundError(runId);
    if (info.state === "done" && info.result !== undefined) return info.result;
    if (info.state === "cancelled") {
      const cancel = info.cancel ?? { at: info.updatedAt };
      throw new RunCancelledError(info.checkpoint?.messages ?? [], runId, undefined, cancel);
    }
    if (info.state === "waiting") {
      const pending = pendingResult(config, info);
      if (pending !== undefined) return pending;
    }
    // Another worker holds it (or won the race to claim it): wait for it to move on.
    await sleep(pause, signal, store.subscribe?.bind(store));
    pause = Math.min(1000, pause * 2);
  }
}

/** Validates answers given to `resume`: each a well-formed Answer, no request twice. */
export function parseAnswers(given: unknown): Answer[] {
  const list: unknown[] = Array.isArray(given) ? given : [given];
  if (list.length === 0) {
    throw new WireFormatError("Answer", [
      { message: "resume needs an Answer or a non-empty array of Answers" },
    ]);
  }
  const answers: Answer[] = [];
  const seen = new Set<string>();
  // An index loop, not map: a sparse array's holes must fail validation, not be skipped.
  for (let i = 0; i < list.length; i++) {
    const answer = parseAnswer(list[i]);
    if (seen.has(answer.id)) {
      throw new ToolnexusError(
        "answers_mismatch",
        `request "${answer.id}" is answered twice in one resume`,
      );
    }
    seen.add(answer.id);
    answers.push(answer);
  }
  return answers;
}

/** Why an answer may find no request: the default store lives and dies with its process. */
const IN_MEMORY_HINT =
  "this client uses the default in-memory run store, which is lost when its process ends and is not shared with other processes; to resume in another process, give every client the same durable store as `runs` (sqliteStore from @toolnexus/store-sqlite, or postgresStore from @toolnexus/store-postgres)";

/** Records answers that all belong to one run; returns that run's id. */
export async function recordAnswers(
  config: ResolvedConfig,
  answers: readonly Answer[],
  by?: string,
): Promise<string> {
  const store = config.runs;
  let runId: string | undefined;
  for (const answer of answers) {
    const found = await store.getRequest(answer.id);
    if (found === undefined) {
      throw new SuspensionNotFoundError(answer.id, config.defaultRuns ? IN_MEMORY_HINT : undefined);
    }
    if (runId !== undefined && found.runId !== runId) {
      throw new ToolnexusError(
        "answers_mismatch",
        `answers "${answers[0]!.id}" and "${answer.id}" belong to different halted runs; resume them separately`,
      );
    }
    runId = found.runId;
    // A policy's approval: never the requester, never someone who approved this call before.
    checkApprover(found.request, by);
  }
  for (const answer of answers) {
    try {
      await (by === undefined ? store.answer(answer) : store.answer(answer, { by }));
    } catch (thrown) {
      // Too late: the request expired, and continuing the run applies the expiry (the tool
      // sees a declined answer), which is what the caller asked for.
      // Matched by code, not instanceof: a store may load its own copy of core.
      const conflict = thrown as Partial<AnswerConflictError> | undefined;
      if (conflict?.code !== "answer_conflict" || conflict.reason !== "expired") throw thrown;
    }
  }
  return runId!;
}

/** Records one answer, validated, without running anything. */
export async function recordAnswer(
  config: ResolvedConfig,
  given: unknown,
  by?: string,
): Promise<AnswerReceipt> {
  const answer = parseAnswer(given);
  try {
    const found = await config.runs.getRequest(answer.id);
    // A policy's approval: never the requester, never someone who approved this call before.
    if (found !== undefined) checkApprover(found.request, by);
    return await (by === undefined
      ? config.runs.answer(answer)
      : config.runs.answer(answer, { by }));
  } catch (thrown) {
    if (config.defaultRuns && (thrown as { code?: unknown })?.code === "suspension_not_found") {
      throw new SuspensionNotFoundError(answer.id, IN_MEMORY_HINT);
    }
    throw thrown;
  }
}
