// `demo` (a run of the release assistant, asked here or halted into the file) and `demo mcp`.
import {
  AnswerInputError,
  type Asker,
  flagAsker,
  hasAnswerFlags,
  TerminalAsker,
} from "./answers.js";
import {
  answerFlags,
  banner,
  type Context,
  EXIT_CANCELLED,
  guarded,
  interruptible,
  report,
} from "./cli-context.js";
import { DEFAULT_PROMPT } from "./director.js";
import { createModel, describeModel } from "./models.js";
import { dbPath, demoClient, newSessionId, openStore, shownPath } from "./setup.js";
import { timelinePath, timelineRecorder } from "./timeline.js";

export async function runCommand(ctx: Context): Promise<number> {
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

/** `demo mcp`: the MCP scene, its server's form question asked like the assistant's own. */
export async function mcpCommand(ctx: Context): Promise<number> {
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
