// `demo worker`: continues the runs in the SQLite file that an answer made ready (or that
// expired), in a process of its own, until Ctrl-C. `demo serve` starts one beside itself, so a
// chat's run halts in the server and goes on here: the page only follows the store.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createModel, describeModel, type ModelChoice } from "./models.js";
import type { Printer } from "./printer.js";
import { demoClient, openStore, shownPath } from "./setup.js";
import { printable } from "./terminal-text.js";

export interface WorkerOptions {
  dbPath: string;
  choice: ModelChoice;
  printer: Printer;
}

/** Set for a worker `serve` started: it stops when its parent's pipe closes. */
const PARENT_ENV = "TOOLNEXUS_DEMO_WORKER_OF_SERVE";

/** How often the worker looks at the file for answered runs (SQLite cannot notify across processes). */
const WORKER_POLL_MS = 300;

export async function workerCommand(options: WorkerOptions): Promise<number> {
  const { printer } = options;
  const s = printer.style;
  const model = createModel(options.choice);
  const store = await openStore(options.dbPath);
  const client = demoClient({ model, store });
  const log = (text: string) =>
    printer.line(`  ${s.dim(new Date().toISOString().slice(11, 19))} ${printable(text)}`);
  printer.line(
    s.dim(`  worker   ${shownPath(options.dbPath)} · ${describeModel(options.choice, model)}`),
  );
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  if (process.env[PARENT_ENV] === "1") {
    // Started by `serve`: its end closes this pipe, even when it could not say goodbye (a crash).
    process.stdin.on("close", onSignal);
    process.stdin.on("end", onSignal);
    process.stdin.resume();
  }
  printer.line("  worker ready");
  const summary = await client.work({
    signal: stop.signal,
    pollMs: WORKER_POLL_MS,
    onResult: (result) => {
      if (result.sessionId !== undefined) store.save(result.sessionId, result.messages);
      log(
        result.status === "pending"
          ? `⏸ worker: ${result.runId} waits for ${result.pending.kind} (${result.pending.id})`
          : `✓ worker: ${result.runId} ${result.status}`,
      );
    },
    onError: (error, runId) =>
      log(`✗ worker: ${runId}: ${error instanceof Error ? error.message : String(error)}`),
  });
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);
  process.stdin.pause();
  store.close();
  printer.line(s.dim(`  worker stopped (${summary.claimed} runs continued)`));
  return 0;
}

/** The CLI's own entry, for starting `demo worker` as a child process. */
const CLI = fileURLToPath(new URL("./cli.ts", import.meta.url));

/**
 * Starts `demo worker` on the same file in a child process, its output prefixed into this
 * terminal. `flags` are the model flags the server was started with.
 */
export function spawnWorker(
  dbPath: string,
  flags: readonly string[],
  log: (text: string) => void,
): ChildProcess {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", CLI, "worker", "--db", dbPath, "--no-color", ...flags],
    { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, [PARENT_ENV]: "1" } },
  );
  const relay = (chunk: Buffer) => {
    for (const line of chunk.toString("utf8").split("\n")) {
      if (line.trim() !== "") log(`[worker ${child.pid}] ${line.trim()}`);
    }
  };
  child.stdout?.on("data", relay);
  child.stderr?.on("data", relay);
  return child;
}
