// `demo resume <id>` (answer a request and continue its run here) and `demo pending`.
import type { Answer } from "@toolnexus/core";
import { type Asker, exampleFlags, flagAsker, hasAnswerFlags, TerminalAsker } from "./answers.js";
import {
  answerFlags,
  banner,
  type Context,
  DEMO,
  guarded,
  interruptible,
  lastAssistantText,
  report,
} from "./cli-context.js";
import { createModel, describeModel } from "./models.js";
import { callLabel, describeAge, describeExpiry, Printer } from "./printer.js";
import {
  assertContinuable,
  dbPath,
  demoClient,
  describeAnswer,
  findRequest,
  isSubAgentRun,
  openStore,
  type Recorded,
  recordAnswer,
  shownPath,
  UsageError,
} from "./setup.js";
import { printable, terminalSafeJson } from "./terminal-text.js";
import { timelinePath, timelineRecorder } from "./timeline.js";

export async function resumeCommand(ctx: Context, id: string | undefined): Promise<number> {
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

export function pendingCommand(ctx: Context): Promise<number> {
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
