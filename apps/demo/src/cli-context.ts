// What every demo command shares: the parsed flags, the context a command runs in, the flags a
// printed command carries, and how a run's end is reported.
import type { parseArgs } from "node:util";
import { RunError, type RunResult } from "@toolnexus/client";
import type { Message } from "@toolnexus/core";
import type { SqliteStore } from "@toolnexus/store-sqlite";
import { type AnswerFlags, exampleFlags } from "./answers.js";
import { demoCommand } from "./invocation.js";
import type { ModelChoice } from "./models.js";
import type { Printer } from "./printer.js";
import { AGENT, RUN_TIMEOUT_MS, shownPath, TOOL_TIMEOUT_MS, UsageError } from "./setup.js";
import { printable } from "./terminal-text.js";
import { STATUS_TIMEOUT_MS } from "./tools.js";

/** How the person starts the demo (see invocation.ts): every printed command begins with it. */
export const DEMO = demoCommand();

export const options = {
  answer: { type: "string", multiple: true, short: "a" },
  approve: { type: "string" },
  decline: { type: "boolean" },
  defaults: { type: "boolean" },
  durable: { type: "boolean" },
  interactive: { type: "boolean" },
  "no-interactive": { type: "boolean" },
  color: { type: "boolean" },
  "no-color": { type: "boolean" },
  db: { type: "string" },
  provider: { type: "string" },
  model: { type: "string" },
  "base-url": { type: "string" },
  prompt: { type: "string" },
  session: { type: "string" },
  port: { type: "string" },
  host: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export type Values = ReturnType<
  typeof parseArgs<{ options: typeof options; allowPositionals: true }>
>["values"];

export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
export const EXIT_CANCELLED = 130;

export function answerFlags(values: Values): AnswerFlags {
  const flags: AnswerFlags = {
    values: {},
    decline: values.decline === true,
    defaults: values.defaults === true,
  };
  for (const pair of values.answer ?? []) {
    const eq = pair.indexOf("=");
    if (eq <= 0)
      throw new UsageError(`--answer takes key=value, e.g. --answer env=staging (got "${pair}")`);
    flags.values[pair.slice(0, eq).trim()] = pair.slice(eq + 1);
  }
  if (values.approve !== undefined) {
    if (/^(y|yes|true)$/i.test(values.approve)) flags.approve = true;
    else if (/^(n|no|false)$/i.test(values.approve)) flags.approve = false;
    else throw new UsageError(`--approve takes yes or no (got "${values.approve}")`);
  }
  return flags;
}

export interface Context {
  values: Values;
  printer: Printer;
  choice: ModelChoice;
  /** Flags to repeat in a printed command so it continues with the same file and model. */
  carry: string;
  /** Just the `--db` flag, for commands that only read the file. */
  carryDb: string;
}

export function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The file the person chose, with `--db` or `TOOLNEXUS_DEMO_DB`, as they wrote it. */
export function chosenDb(values: Values, env: NodeJS.ProcessEnv): string | undefined {
  return values.db ?? (env.TOOLNEXUS_DEMO_DB || undefined);
}

/**
 * `--db` (from the flag or `TOOLNEXUS_DEMO_DB`, so a command printed here works in a shell
 * without that variable) and the effective model choice (from flags or environment), never an
 * API key.
 */
export function carriedFlags(values: Values, choice: ModelChoice, env: NodeJS.ProcessEnv): string {
  const parts: string[] = [];
  const db = chosenDb(values, env);
  if (db !== undefined) parts.push("--db", quoteArg(db));
  if (choice.provider !== "scripted") {
    parts.push("--provider", choice.provider);
    if (choice.model !== undefined) parts.push("--model", quoteArg(choice.model));
    if (choice.baseUrl !== undefined) parts.push("--base-url", quoteArg(choice.baseUrl));
  }
  return parts.length === 0 ? "" : ` ${parts.join(" ")}`;
}

/** The model flags as arguments, for a child process on the same model (the serve's worker). */
export function modelFlags(choice: ModelChoice): string[] {
  if (choice.provider === "scripted") return [];
  const flags = ["--provider", choice.provider];
  if (choice.model !== undefined) flags.push("--model", choice.model);
  if (choice.baseUrl !== undefined) flags.push("--base-url", choice.baseUrl);
  return flags;
}

/** Just the `--db` flag (or none), for commands that only read the file. */
export function carryDb(values: Values): string {
  const db = chosenDb(values, process.env);
  return db === undefined ? "" : ` --db ${quoteArg(db)}`;
}

export function lastAssistantText(messages: readonly Message[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "assistant" && m.content.trim() !== "") return m.content.trim();
  }
  return undefined;
}

/** What to print after a run or a resume; returns the exit status. */
export function report(ctx: Context, result: RunResult, store: SqliteStore | undefined): number {
  const { printer } = ctx;
  const s = printer.style;
  printer.summary(result);
  if (result.status === "done") {
    return 0;
  }
  if (result.status === "incomplete") {
    return EXIT_FAILED;
  }
  const db = store === undefined ? "memory" : shownPath(store.path);
  printer.line(
    `${s.yellow(s.bold("⏸ halted"))} ${s.dim(`the run waits for a person; run ${result.runId} is in ${db} and this process is done`)}`,
  );
  for (const request of result.pendings) {
    const asker = request.route === undefined ? "" : ` asked by ${printable(request.route.agent)}`;
    printer.line(
      `  ${s.bold(printable(request.kind))}${asker}: ${printable(request.prompt)} ${s.dim(`(${printable(request.id)})`)}`,
    );
  }
  printer.line("  continue it from any terminal, now or later:");
  printer.line(
    `    ${s.cyan(`${DEMO} resume ${printable(result.pending.id)} ${exampleFlags(result.pending)}${ctx.carry}`)}`,
  );
  printer.line(
    `  ${s.dim(`or list what waits with`)} ${DEMO} pending${ctx.carryDb} ${s.dim("· answer it in a browser with")} ${DEMO} serve${ctx.carry}`,
  );
  return 0;
}

export function banner(ctx: Context, modelText: string, sessionId: string, mode: string): void {
  const { printer } = ctx;
  printer.heading("toolnexus demo · release assistant", "");
  printer.line(printer.style.dim(`  model    ${modelText}`));
  printer.line(printer.style.dim(`  session  ${sessionId} · agent ${AGENT}`));
  printer.line(
    printer.style.dim(
      `  budgets  fetch_status ${STATUS_TIMEOUT_MS}ms · other tools ${TOOL_TIMEOUT_MS}ms · run ${RUN_TIMEOUT_MS / 1000}s (a person's wait never counts)`,
    ),
  );
  printer.line(printer.style.dim(`  answers  ${mode}`));
}

/** Ctrl-C cancels the run: in-flight tools see their signal abort, the transcript is kept. */
export function interruptible(): { signal: AbortSignal; abort: () => void; dispose: () => void } {
  const controller = new AbortController();
  const abort = () => controller.abort(new Error("interrupted (Ctrl-C)"));
  process.on("SIGINT", abort);
  return { signal: controller.signal, abort, dispose: () => process.off("SIGINT", abort) };
}

/** Saves whatever transcript a failed run kept, then rethrows. */
export async function guarded(
  work: Promise<RunResult>,
  store: SqliteStore,
  sessionId: string | undefined,
): Promise<RunResult> {
  try {
    return await work;
  } catch (thrown) {
    if (thrown instanceof RunError && sessionId !== undefined)
      store.save(sessionId, thrown.messages);
    throw thrown;
  }
}
