// The execution log: each worker process appends one JSON line per tool execution start and end,
// and one per answer it recorded, to <logDir>/exec-<pid>.log. Appends of a line survive a
// SIGKILL of the writer, so after the chaos the test counts what really ran.
import { appendFileSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** One tool execution, as a worker logged it. */
export interface Exec {
  tool: string;
  runId: string;
  callId: string;
  attempt: number;
  /** Whether the execution had the human's answer (`ctx.answer`). */
  answered: boolean;
  phase: "start" | "end";
  pid: number;
  /** When, in ms since the epoch (for benchmarks). */
  at?: number;
}

/** An answer a worker recorded. */
export interface AnswerLog {
  answered: string;
  runId: string;
  token: string;
  /** The store already had this answer (another answerer recorded it first). */
  duplicate?: boolean;
}

/** The writing side, for a worker process: appends one line to this process's log. */
export function logWriter(logDir: string): (entry: Record<string, unknown>) => void {
  const file = join(logDir, `exec-${process.pid}.log`);
  return (entry) => appendFileSync(file, `${JSON.stringify({ ...entry, pid: process.pid })}\n`);
}

/** Every logged execution and answer of every process that wrote to `logDir`. */
export function readLogs(logDir: string): { execs: Exec[]; answers: AnswerLog[] } {
  const execs: Exec[] = [];
  const answers: AnswerLog[] = [];
  for (const file of readdirSync(logDir)) {
    for (const line of readFileSync(join(logDir, file), "utf8").split("\n")) {
      if (line === "") continue;
      // A process killed mid-write may leave a torn last line: it logged nothing usable.
      let value: Record<string, unknown>;
      try {
        value = JSON.parse(line);
      } catch {
        continue;
      }
      if (typeof value.answered === "string") answers.push(value as unknown as AnswerLog);
      else if (typeof value.tool === "string") execs.push(value as unknown as Exec);
    }
  }
  return { execs, answers };
}

/** The executions that started (each logs a start, and an end if it got there). */
export function startedExecs(logDir: string): Exec[] {
  return readLogs(logDir).execs.filter((exec) => exec.phase === "start");
}
