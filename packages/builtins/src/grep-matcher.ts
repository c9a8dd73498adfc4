// grep's matching, off the main thread: each call borrows a worker thread (grep-worker.ts),
// sends it one file at a time, and terminates it when the call is stopped (deadline or cancel)
// in the middle of a match. A pattern that would run for ever then costs one thread until the
// deadline, never the process's event loop. Threads that finish are kept for the next call.
import { Worker } from "node:worker_threads";
import { MATCH_WORKER_SOURCE, type MatchJob, type MatchReply } from "./grep-worker.js";
import { type CallLimit, StoppedError } from "./limit.js";

/** Said after `grep: timed out after <ms>ms` when the time ran out inside the regex. */
export const PATTERN_TIMEOUT_DETAIL =
  "while matching the pattern: the regular expression ran out of time (one that backtracks, like (a+)+$ on a long line, can run for ever); simplify it or narrow path or include";

/** Idle threads kept for later calls, and how long one is kept. */
const MAX_IDLE_THREADS = 2;
const IDLE_MS = 10_000;

const idle: { worker: Worker; timer: ReturnType<typeof setTimeout> }[] = [];

function borrow(): Worker {
  const kept = idle.pop();
  if (kept !== undefined) {
    clearTimeout(kept.timer);
    return kept.worker;
  }
  const worker = new Worker(MATCH_WORKER_SOURCE, { eval: true, name: "toolnexus grep" });
  // An idle thread never keeps the process alive; a job refs it while it runs.
  worker.unref();
  // Errors are handled per job; this keeps one from being thrown while the thread is idle.
  worker.on("error", () => {});
  worker.once("exit", () => forget(worker));
  return worker;
}

function giveBack(worker: Worker): void {
  if (idle.length >= MAX_IDLE_THREADS) {
    void worker.terminate();
    return;
  }
  const timer = setTimeout(() => {
    forget(worker);
    void worker.terminate();
  }, IDLE_MS);
  timer.unref();
  idle.push({ worker, timer });
}

function forget(worker: Worker): void {
  const at = idle.findIndex((kept) => kept.worker === worker);
  if (at === -1) return;
  clearTimeout(idle[at]?.timer);
  idle.splice(at, 1);
}

/** The matching lines of one file: [1-based line number, line as shown]. */
export type LineMatch = [number, string];

/** One grep call's matcher: one pattern, one borrowed thread, the call's stop conditions. */
export class LineMatcher {
  readonly #pattern: string;
  readonly #maxLineChars: number;
  readonly #limit: CallLimit;
  #worker: Worker | undefined;
  #jobs = 0;

  constructor(pattern: string, maxLineChars: number, limit: CallLimit) {
    this.#pattern = pattern;
    this.#maxLineChars = maxLineChars;
    this.#limit = limit;
  }

  /**
   * The lines of `text` that match, at most `want`. Rejects with a {@link StoppedError} when the
   * call is stopped first (the thread is then terminated, whatever the regex is doing).
   */
  match(text: string, want: number): Promise<LineMatch[]> {
    this.#limit.check();
    this.#worker ??= borrow();
    const worker = this.#worker;
    const { signal } = this.#limit;
    const job: MatchJob = {
      id: ++this.#jobs,
      pattern: this.#pattern,
      text,
      want,
      maxLineChars: this.#maxLineChars,
    };
    return new Promise<LineMatch[]>((resolve, reject) => {
      const settle = () => {
        worker.off("message", onMessage);
        worker.off("error", onError);
        worker.off("exit", onExit);
        signal.removeEventListener("abort", onStop);
        worker.unref();
      };
      // A thread that failed or was stopped is not given back.
      const lose = () => {
        if (this.#worker === worker) this.#worker = undefined;
      };
      const onMessage = (reply: MatchReply) => {
        if (reply.id !== job.id) return;
        settle();
        if ("failed" in reply) reject(new Error(`the pattern failed: ${reply.failed}`));
        else resolve(reply.found);
      };
      const onError = (thrown: Error) => {
        settle();
        lose();
        reject(new Error(`the matching thread failed: ${thrown.message}`));
      };
      const onExit = (code: number) => {
        settle();
        lose();
        reject(new Error(`the matching thread exited with code ${code}`));
      };
      const onStop = () => {
        settle();
        lose();
        void worker.terminate();
        reject(new StoppedError(this.#limit.describe(), PATTERN_TIMEOUT_DETAIL));
      };
      worker.on("message", onMessage);
      worker.on("error", onError);
      worker.on("exit", onExit);
      signal.addEventListener("abort", onStop, { once: true });
      worker.ref();
      worker.postMessage(job);
    });
  }

  /** Ends the call: its thread is kept for the next one (unless it failed or was stopped). */
  close(): void {
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker !== undefined) giveBack(worker);
  }
}
