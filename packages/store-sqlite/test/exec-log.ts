// The log the durable-agent fixture writes: one JSON line per tool execution start and end, and
// one per answer recorded, in a file per process (exec-<pid>.log).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** One tool execution, as the fixture logged it. */
export interface Exec {
  tool: string;
  runId: string;
  callId: string;
  attempt: number;
  answered: boolean;
  phase: "start" | "end";
  pid: number;
}

/** An answer an answerer process recorded. */
export interface AnswerLog {
  answered: string;
  runId: string;
  token: string;
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
      else execs.push(value as unknown as Exec);
    }
  }
  return { execs, answers };
}

/** The executions that started (each execution logs a start, and an end if it got there). */
export function startedExecs(logDir: string): Exec[] {
  return readLogs(logDir).execs.filter((exec) => exec.phase === "start");
}
