// The counts that prove durability after the chaos, from the execution logs and the runs as the
// store has them. They hold for the durable agent of ./agent.ts: each run calls `prepare` (its
// result `prepared#<attempt>`), then `approve`, which halts for an answer and then returns
// `applied <token>#<attempt>`. The attempt in a journaled result says which execution the run
// kept; any execution of that call after it is a call run again after its journal.
import type { Awaitable, RunInfo } from "@toolnexus/core";
import { readLogs } from "./exec-log.js";

/** How many runs are in each state (`absent` for a run the store does not have). */
export async function countStates(
  runIds: readonly string[],
  getRun: (runId: string) => Awaitable<RunInfo | undefined>,
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const id of runIds) {
    const state = (await getRun(id))?.state ?? "absent";
    counts[state] = (counts[state] ?? 0) + 1;
  }
  return counts;
}

export interface Verdict {
  /** Runs the store has as `done`. */
  finished: number;
  /** Tool executions started (every attempt of every call). */
  executions: number;
  /** How many journaled calls had 1, 2, … executions. */
  executionsPerJournaledCall: Record<number, number>;
  /** Executions with an attempt above 1 (a call taken over from a dead worker). */
  reExecutions: number;
  answersLogged: number;
  /** Logged answers whose token the run's result carries. */
  answersKept: number;
  /** Answers logged or stored that the run's result does not carry (must be 0). */
  lostAnswers: number;
  /** Journaled calls that ran again after the execution whose result was kept (must be 0). */
  rerunAfterJournal: number;
  /** Calls with one attempt number executed twice (must be 0). */
  repeatedAttempt: number;
}

/** Reads the logs under `logDir` and each run, and counts. */
export async function judgeDurability(input: {
  runIds: readonly string[];
  logDir: string;
  getRun: (runId: string) => Awaitable<RunInfo | undefined>;
}): Promise<Verdict> {
  const { execs, answers } = readLogs(input.logDir);
  const started = execs.filter((exec) => exec.phase === "start");
  const attemptsOf = new Map<string, number[]>();
  for (const exec of started) {
    const key = `${exec.runId}|${exec.callId}|${exec.answered}`;
    attemptsOf.set(key, [...(attemptsOf.get(key) ?? []), exec.attempt]);
  }
  const verdict: Verdict = {
    finished: 0,
    executions: started.length,
    executionsPerJournaledCall: {},
    reExecutions: started.filter((exec) => exec.attempt > 1).length,
    answersLogged: answers.length,
    answersKept: 0,
    lostAnswers: 0,
    rerunAfterJournal: 0,
    repeatedAttempt: 0,
  };
  const histogram = verdict.executionsPerJournaledCall;
  const results = new Map<string, string[]>();
  for (const runId of input.runIds) {
    const info = await input.getRun(runId);
    if (info?.state === "done") verdict.finished++;
    const tools = (info?.result?.messages ?? []).flatMap((m) =>
      m.role === "tool" ? [m.content] : [],
    );
    results.set(runId, tools);
    const journaled = [
      { key: `${runId}|c_prepare|false`, attempt: Number(tools[0]?.split("#")[1]) },
      { key: `${runId}|c_approve|true`, attempt: Number(tools[1]?.split("#")[1]) },
    ];
    for (const { key, attempt } of journaled) {
      const attempts = attemptsOf.get(key) ?? [];
      histogram[attempts.length] = (histogram[attempts.length] ?? 0) + 1;
      if (new Set(attempts).size !== attempts.length) verdict.repeatedAttempt++;
      if (attempts.length === 0 || Math.max(...attempts) !== attempt) verdict.rerunAfterJournal++;
    }
    // The answer the store kept must be the one the run applied.
    const answer = info?.requests.find((r) => r.answer !== undefined)?.answer;
    const token = answer?.ok ? String(answer.data?.token) : undefined;
    if (token === undefined || !tools[1]?.startsWith(`applied ${token}#`)) verdict.lostAnswers++;
  }
  // And every answer a process saw recorded must be in its run's result.
  for (const logged of answers) {
    const tools = results.get(logged.runId) ?? [];
    if (tools.some((content) => content.startsWith(`applied ${logged.token}#`))) {
      verdict.answersKept++;
    } else verdict.lostAnswers++;
  }
  return verdict;
}
