// `pnpm demo [command] [flags]`: the release assistant in the terminal, durable halts and
// resumes across processes, the list of waiting requests, and the browser inbox.
import { parseArgs } from "node:util";
import {
  AnswerConflictError,
  RunCancelledError,
  RunError,
  type RunResult,
  SuspensionNotFoundError,
  WireFormatError,
} from "@toolnexus/client";
import type { Answer, Message } from "@toolnexus/core";
import type { SqliteStore } from "@toolnexus/store-sqlite";
import {
  type AnswerFlags,
  AnswerInputError,
  type Asker,
  exampleFlags,
  flagAsker,
  hasAnswerFlags,
  TerminalAsker,
} from "./answers.js";
import { DEFAULT_PROMPT } from "./director.js";
import { demoCommand } from "./invocation.js";
import {
  chooseModel,
  createModel,
  describeModel,
  type ModelChoice,
  ModelSetupError,
} from "./models.js";
import {
  callLabel,
  describeAge,
  describeExpiry,
  LiveStatus,
  makeStyle,
  Printer,
  wantsColour,
} from "./printer.js";
import {
  AGENT,
  assertContinuable,
  dbPath,
  demoClient,
  describeAnswer,
  findRequest,
  isSubAgentRun,
  newSessionId,
  openStore,
  type Recorded,
  RUN_TIMEOUT_MS,
  recordAnswer,
  shownPath,
  TOOL_TIMEOUT_MS,
  UsageError,
  WAIT_TIMEOUT_MS,
} from "./setup.js";
import { printable, terminalSafeJson } from "./terminal-text.js";
import { timelinePath, timelineRecorder } from "./timeline.js";
import { STATUS_TIMEOUT_MS } from "./tools.js";

/** How the person starts the demo (see invocation.ts): every printed command begins with it. */
const DEMO = demoCommand();

const USAGE = `toolnexus demo: a release assistant that stops and asks

usage: ${DEMO} [command] [flags]

  (no command)                  run the release assistant: [--durable] [answer flags] [model flags]
  resume <request-id>           answer a request and continue its run here: [answer flags]
  pending [--json]              list the requests that wait (or expired)
  mcp [answer flags]            a local MCP server's tool in the loop, its question asked here
  serve [--port 4173] [--host 127.0.0.1]
                                the chat and the inbox in a browser, with a worker process
  worker                        continue answered runs from the file until Ctrl-C

answer flags (used when there is no terminal to ask, or to skip the prompt; off a terminal,
nothing is decided for a person without one: a question no flag answers is declined):
  --answer key=value     a field of an input request, e.g. --answer env=staging (repeatable)
  --approve yes|no       answer an approval
  --defaults             take an input's stated defaults for the fields no --answer fills
  --decline              refuse the request
  --interactive          always prompt, reading answers from standard input
  --no-interactive       never prompt, even on a terminal

model flags (default: the embedded scripted model, no network, no API key):
  --provider openai|anthropic   TOOLNEXUS_DEMO_PROVIDER
  --model <name>                TOOLNEXUS_DEMO_MODEL
  --base-url <url>              TOOLNEXUS_DEMO_BASE_URL (an OpenAI-compatible server when no provider is given)
  API keys come from OPENAI_API_KEY / ANTHROPIC_API_KEY, as the adapters read them.

other flags:
  --durable              halt into the SQLite file instead of asking in this process
  --db <path>            the SQLite file (TOOLNEXUS_DEMO_DB; default .toolnexus/demo.db)
  --prompt <text>        what to ask the assistant
  --session <id>         the session id (default: a new one)
  --color / --no-color   force colour on or off (NO_COLOR is respected)
`;

const options = {
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

type Values = ReturnType<
  typeof parseArgs<{ options: typeof options; allowPositionals: true }>
>["values"];

const EXIT_FAILED = 1;
const EXIT_USAGE = 2;
const EXIT_CANCELLED = 130;

function answerFlags(values: Values): AnswerFlags {
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

interface Context {
  values: Values;
  printer: Printer;
  choice: ModelChoice;
  /** Flags to repeat in a printed command so it continues with the same file and model. */
  carry: string;
  /** Just the `--db` flag, for commands that only read the file. */
  carryDb: string;
}

function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The file the person chose, with `--db` or `TOOLNEXUS_DEMO_DB`, as they wrote it. */
function chosenDb(values: Values, env: NodeJS.ProcessEnv): string | undefined {
  return values.db ?? (env.TOOLNEXUS_DEMO_DB || undefined);
}

/**
 * `--db` (from the flag or `TOOLNEXUS_DEMO_DB`, so a command printed here works in a shell
 * without that variable) and the effective model choice (from flags or environment), never an
 * API key.
 */
function carriedFlags(values: Values, choice: ModelChoice, env: NodeJS.ProcessEnv): string {
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
function modelFlags(choice: ModelChoice): string[] {
  if (choice.provider === "scripted") return [];
  const flags = ["--provider", choice.provider];
  if (choice.model !== undefined) flags.push("--model", choice.model);
  if (choice.baseUrl !== undefined) flags.push("--base-url", choice.baseUrl);
  return flags;
}

/** Just the `--db` flag (or none), for commands that only read the file. */
function carryDb(values: Values): string {
  const db = chosenDb(values, process.env);
  return db === undefined ? "" : ` --db ${quoteArg(db)}`;
}

function lastAssistantText(messages: readonly Message[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "assistant" && m.content.trim() !== "") return m.content.trim();
  }
  return undefined;
}

/** What to print after a run or a resume; returns the exit status. */
function report(ctx: Context, result: RunResult, store: SqliteStore | undefined): number {
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

function banner(ctx: Context, modelText: string, sessionId: string, mode: string): void {
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
function interruptible(): { signal: AbortSignal; abort: () => void; dispose: () => void } {
  const controller = new AbortController();
  const abort = () => controller.abort(new Error("interrupted (Ctrl-C)"));
  process.on("SIGINT", abort);
  return { signal: controller.signal, abort, dispose: () => process.off("SIGINT", abort) };
}

async function runCommand(ctx: Context): Promise<number> {
  const { values, printer } = ctx;
  const model = createModel(ctx.choice);
  const sessionId = values.session ?? newSessionId();
  const flags = answerFlags(values);
  const prompt = values.prompt ?? DEFAULT_PROMPT;
  const cancel = interruptible();

  if (values.durable) {
    const store = await openStore(dbPath(values.db));
    try {
      banner(
        ctx,
        describeModel(ctx.choice, model),
        sessionId,
        `durable: a request halts the run into ${shownPath(store.path)}`,
      );
      // The inbox shows when each step happened: this process writes down what it sees.
      const timeline = timelineRecorder(timelinePath(store.path), sessionId);
      const client = demoClient({
        model,
        store,
        onEvent: (event) => {
          printer.event(event);
          timeline.onEvent(event);
        },
        observe: printer.note,
      });
      printer.user(prompt);
      timeline.started();
      const result = await guarded(
        client.run(prompt, { sessionId, signal: cancel.signal }),
        store,
        sessionId,
      );
      store.save(sessionId, result.messages);
      return report(ctx, result, store);
    } finally {
      cancel.dispose();
      store.close();
    }
  }

  const interactive =
    values["no-interactive"] === true
      ? false
      : values.interactive === true ||
        (process.stdin.isTTY === true && process.stdout.isTTY === true);
  let terminal: TerminalAsker | undefined;
  let asker: Asker;
  let mode: string;
  if (interactive) {
    terminal = new TerminalAsker(printer, process.stdin, process.stdout, cancel.abort);
    asker = terminal.asker;
    mode = "asked here, in this terminal";
  } else {
    asker = flagAsker(flags, printer, "no terminal to ask");
    mode = hasAnswerFlags(flags)
      ? "from the command-line flags (no prompt)"
      : "no terminal to ask, and no flag: every question is declined (--answer env=staging, --defaults, --approve yes)";
  }
  try {
    banner(ctx, describeModel(ctx.choice, model), sessionId, mode);
    // A flag that does not fit the request stops the run (nothing is deployed on a typo).
    let misfit: AnswerInputError | undefined;
    const client = demoClient({
      model,
      waitFor: async (request, info) => {
        // The spinner stays off while a person is asked.
        printer.live?.hold();
        try {
          return await asker(request, info.signal);
        } catch (thrown) {
          if (thrown instanceof AnswerInputError) {
            misfit = thrown;
            cancel.abort();
          }
          throw thrown;
        } finally {
          printer.live?.release();
        }
      },
      onEvent: printer.event,
      observe: printer.note,
    });
    printer.user(prompt);
    try {
      const result = await client.run(prompt, { sessionId, signal: cancel.signal });
      return report(ctx, result, undefined);
    } catch (thrown) {
      throw misfit ?? thrown;
    }
  } finally {
    cancel.dispose();
    terminal?.close();
  }
}

/** Saves whatever transcript a failed run kept, then rethrows. */
async function guarded(
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

async function resumeCommand(ctx: Context, id: string | undefined): Promise<number> {
  const { values, printer } = ctx;
  const s = printer.style;
  if (id === undefined || id === "") {
    throw new UsageError(
      `resume needs the request id, e.g. ${DEMO} resume pnd_… --answer env=staging (${DEMO} pending lists them)`,
    );
  }
  const flags = answerFlags(values);
  const store = await openStore(dbPath(values.db));
  const cancel = interruptible();
  let terminal: TerminalAsker | undefined;
  try {
    const found = findRequest(store, id);
    assertContinuable(found);
    const model = createModel(ctx.choice);
    const timeline =
      found.sessionId === undefined
        ? undefined
        : timelineRecorder(timelinePath(store.path), found.sessionId);
    const client = demoClient({
      model,
      store,
      onEvent: (event) => {
        printer.event(event);
        timeline?.onEvent(event);
      },
      observe: printer.note,
    });
    const open = found.state === "waiting";
    const settled = found.state === "answered" || found.state === "applied";
    // An answer on record cannot be changed, so there is nothing to ask. Answer flags must
    // repeat it: a different one is refused here, before anything is printed or run.
    let recorded: Recorded | undefined;
    if (settled && hasAnswerFlags(flags)) {
      const quiet = new Printer(() => {}, printer.style);
      recorded = await recordAnswer(
        client,
        await flagAsker(flags, quiet, "no answer flags given")(found.request),
      );
    }
    const interactive =
      open &&
      values["no-interactive"] !== true &&
      !hasAnswerFlags(flags) &&
      (values.interactive === true ||
        (process.stdin.isTTY === true && process.stdout.isTTY === true));
    // The run is halted safely in the file: with nobody to ask and no flag, nothing is granted,
    // chosen or refused on the person's behalf. Nothing is recorded; it keeps waiting.
    if (open && !interactive && !hasAnswerFlags(flags)) {
      const permission =
        found.request.kind === "approval" || found.request.kind === "authorization";
      const what = permission
        ? found.request.kind === "approval"
          ? "an approval"
          : "an authorization"
        : "an answer";
      const how = permission
        ? "add --approve yes or --approve no"
        : "answer with --answer key=value, or pass --defaults to take its defaults";
      throw new UsageError(
        `request ${printable(found.request.id)} asks for ${what} ("${printable(found.request.prompt)}") and there is no terminal to ask: ${how} (${DEMO} resume ${printable(found.request.id)} ${exampleFlags(found.request)}${ctx.carry}). Nothing was recorded; it still waits.`,
      );
    }
    banner(
      ctx,
      describeModel(ctx.choice, model),
      found.sessionId ?? "(none)",
      !open
        ? "none needed: this request is no longer open"
        : interactive
          ? "asked here, in this terminal"
          : "from the command-line flags",
    );
    printer.line();
    printer.line(
      `${s.dim("resuming from")} ${shownPath(store.path)}${s.dim(`: this process did not start the run (${found.runId})`)}`,
    );
    const earlier = lastAssistantText(found.messages);
    if (earlier !== undefined)
      printer.line(`${s.dim("earlier, assistant ›")} ${s.dim(printable(earlier))}`);
    const label = callLabel({ name: found.tool ?? "request", args: found.args ?? {} });
    // Shown with its effective deadline (an approval's comes from the client's wait limit).
    const shown =
      found.request.expiresAt === undefined && found.expiresAt !== undefined
        ? { ...found.request, expiresAt: found.expiresAt }
        : found.request;
    const say = (text: string) => printer.line(`    ${s.magenta("↳")} ${text}`);
    if (open) {
      printer.pendingLine(shown, label);
      let asker: Asker;
      if (interactive) {
        terminal = new TerminalAsker(printer, process.stdin, process.stdout, cancel.abort);
        asker = terminal.asker;
      } else {
        asker = flagAsker(flags, printer, "no answer flags given");
      }
      const answer: Answer = await asker(found.request, cancel.signal);
      terminal?.close();
      terminal = undefined;
      recorded = await recordAnswer(client, answer);
    } else if (found.state === "expired") {
      printer.pendingLine(shown, label);
    }
    if (recorded === "duplicate" || (settled && recorded === undefined)) {
      say(
        found.answer === undefined && recorded === undefined
          ? `request ${found.request.id} is no longer open: it expired unanswered, and its run went on as if it were declined`
          : `request ${found.request.id} was already answered (${found.answer === undefined ? "answer on record" : describeAnswer(found.answer)})${recorded === "duplicate" ? "; the same answer again changes nothing" : ""}`,
      );
    }
    if (recorded === "expired" || found.state === "expired") {
      say(
        `request ${found.request.id} expired before anyone answered, so no answer can be recorded; the run goes on as if it were declined`,
      );
    }
    if (settled && found.runState === "done") {
      printer.line();
      printer.line(
        `${s.green(s.bold("✓ done"))} ${s.dim("its run had already finished; nothing was run again")}`,
      );
      return 0;
    }
    const result = await guarded(
      client.continueRun(found.runId, { signal: cancel.signal }),
      store,
      found.sessionId,
    );
    if (result.sessionId !== undefined) store.save(result.sessionId, result.messages);
    return report(ctx, result, store);
  } finally {
    terminal?.close();
    cancel.dispose();
    store.close();
  }
}

/** `demo mcp`: the MCP scene, its server's form question asked like the assistant's own. */
async function mcpCommand(ctx: Context): Promise<number> {
  const { values, printer } = ctx;
  const flags = answerFlags(values);
  const interactive =
    values["no-interactive"] === true
      ? false
      : values.interactive === true ||
        (process.stdin.isTTY === true && process.stdout.isTTY === true);
  const terminal = interactive
    ? new TerminalAsker(printer, process.stdin, process.stdout, () => process.exit(EXIT_CANCELLED))
    : undefined;
  const asker = terminal?.asker ?? flagAsker(flags, printer, "no terminal to ask");
  // A flag that does not fit the form cancels the elicitation (the server hears "cancel");
  // the person then hears why, with the usage exit status.
  let unfit: AnswerInputError | undefined;
  try {
    const { runMcpScene } = await import("./mcp-scene.js");
    await runMcpScene({
      write: (line) => printer.line(line),
      style: printer.style,
      waitFor: async (request, info) => {
        try {
          return await asker(request, info.signal);
        } catch (thrown) {
          if (thrown instanceof AnswerInputError) unfit = thrown;
          throw thrown;
        }
      },
    });
    if (unfit !== undefined) throw unfit;
    return 0;
  } finally {
    terminal?.close();
  }
}

function pendingCommand(ctx: Context): Promise<number> {
  return (async () => {
    const { values, printer } = ctx;
    const s = printer.style;
    const store = await openStore(dbPath(values.db));
    try {
      // A sub-agent's own requests are left out: the assistant's run passes each one on as its
      // own request, and that is the one to answer.
      const waiting = [
        ...store.list({ state: "waiting" }),
        ...store.list({ state: "expired" }),
      ].filter((item) => !isSubAgentRun(item.runId));
      if (values.json) {
        printer.line(terminalSafeJson(waiting, 2));
        return 0;
      }
      if (waiting.length === 0) {
        printer.line(
          `nothing waits in ${shownPath(store.path)}. Start a run that halts with: ${DEMO} --durable${ctx.carry}`,
        );
        return 0;
      }
      printer.line(`${waiting.length} request(s) waiting in ${shownPath(store.path)}:`);
      for (const item of waiting) {
        const { request } = item;
        printer.line();
        const id = printable(request.id);
        printer.line(
          `  ${s.bold(id)}  ${s.yellow(printable(request.kind))}  ${printable(request.prompt)}`,
        );
        const asker =
          request.route === undefined ? "" : `, asked by ${printable(request.route.agent)}`;
        printer.line(
          s.dim(
            `    agent ${printable(item.agent ?? "-")}${asker} · session ${printable(item.sessionId ?? "-")} · ${describeAge(item.createdAt)} · ${item.state === "expired" ? "expired" : describeExpiry(item.expiresAt)}`,
          ),
        );
        printer.line(
          item.state === "expired"
            ? `    ${s.cyan(`${DEMO} resume ${id}${ctx.carry}`)} ${s.dim("(too late to answer: continues the run as if declined)")}`
            : `    ${s.cyan(`${DEMO} resume ${id} ${exampleFlags(request)}${ctx.carry}`)}`,
        );
      }
      return 0;
    } finally {
      store.close();
    }
  })();
}

function explain(
  thrown: unknown,
  carryDb: string,
  file: string,
): { message: string; code: number } {
  if (
    thrown instanceof UsageError ||
    thrown instanceof AnswerInputError ||
    thrown instanceof ModelSetupError
  ) {
    return { message: thrown.message, code: EXIT_USAGE };
  }
  if (thrown instanceof AnswerConflictError && thrown.reason === "answered") {
    return {
      message: `request ${thrown.requestId} was already answered differently (in another terminal, or in the inbox); an answer cannot be changed once recorded, so nothing was recorded or run. \`${DEMO} pending${carryDb}\` lists what still waits.`,
      code: EXIT_FAILED,
    };
  }
  if (thrown instanceof SuspensionNotFoundError) {
    return {
      message: `no request ${thrown.requestId} waits in ${file}; check the id (\`${DEMO} pending${carryDb}\` lists what waits) and the file (--db, TOOLNEXUS_DEMO_DB).`,
      code: EXIT_FAILED,
    };
  }
  if (thrown instanceof RunCancelledError) {
    return {
      message: `cancelled: the run stopped and its tools saw their signals abort (${thrown.messages.length} messages kept).`,
      code: EXIT_CANCELLED,
    };
  }
  if (thrown instanceof WireFormatError || thrown instanceof RunError) {
    return { message: thrown.message, code: EXIT_FAILED };
  }
  if (thrown instanceof Error && thrown.name === "AbortError") {
    return { message: "cancelled", code: EXIT_CANCELLED };
  }
  return { message: thrown instanceof Error ? thrown.message : String(thrown), code: EXIT_FAILED };
}

export async function main(argv: readonly string[]): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (thrown) {
    process.stderr.write(`✗ ${(thrown as Error).message}\n\n${USAGE}`);
    return EXIT_USAGE;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const colourFlag = values["no-color"] ? false : values.color ? true : undefined;
  const style = makeStyle(wantsColour(process.stdout, process.env, colourFlag));
  const write = (text: string) => {
    process.stdout.write(text);
  };
  // A spinner with the running calls' times, on a terminal only: a log stays plain text.
  const live =
    process.stdout.isTTY === true
      ? new LiveStatus(write, style, () => process.stdout.columns)
      : undefined;
  const printer = new Printer(write, style, WAIT_TIMEOUT_MS, live);
  const errStyle = makeStyle(wantsColour(process.stderr, process.env, colourFlag));
  const [command, ...rest] = positionals;
  try {
    const choice = chooseModel(
      { provider: values.provider, model: values.model, baseUrl: values["base-url"] },
      process.env,
    );
    const ctx: Context = {
      values,
      printer,
      choice,
      carry: carriedFlags(values, choice, process.env),
      carryDb: carryDb(values),
    };
    switch (command) {
      case undefined:
      case "run":
        return await runCommand(ctx);
      case "resume":
        if (rest.length > 1)
          throw new UsageError(`resume takes one request id, got ${rest.join(" ")}`);
        return await resumeCommand(ctx, rest[0]);
      case "pending":
        return await pendingCommand(ctx);
      case "mcp":
        return await mcpCommand(ctx);
      case "serve": {
        const { serveCommand } = await import("./server.js");
        return await serveCommand({
          dbPath: dbPath(values.db),
          port: values.port,
          host: values.host,
          choice,
          printer,
          workerFlags: modelFlags(choice),
        });
      }
      case "worker": {
        const { workerCommand } = await import("./worker.js");
        return await workerCommand({ dbPath: dbPath(values.db), choice, printer });
      }
      default:
        throw new UsageError(`unknown command "${command}"; see ${DEMO} --help`);
    }
  } catch (thrown) {
    live?.hold();
    const { message, code } = explain(thrown, carryDb(values), shownPath(dbPath(values.db)));
    // An error can carry a server's or a model's text: shown, never obeyed.
    process.stderr.write(`${errStyle.red("✗")} ${printable(message)}\n`);
    if (code === EXIT_USAGE && thrown instanceof UsageError) process.stderr.write(`\n${USAGE}`);
    return code;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (thrown: unknown) => {
    process.stderr.write(
      `✗ unexpected failure: ${thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown)}\n`,
    );
    process.exitCode = EXIT_FAILED;
  },
);
