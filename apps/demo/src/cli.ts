// `pnpm demo [command] [flags]`: the release assistant in the terminal, durable halts and
// resumes across processes, the list of waiting requests, and the browser inbox.
import { parseArgs } from "node:util";
import {
  AnswerConflictError,
  RunCancelledError,
  RunError,
  SuspensionNotFoundError,
  WireFormatError,
} from "@toolnexus/client";
import { AnswerInputError } from "./answers.js";
import {
  type Context,
  carriedFlags,
  carryDb,
  DEMO,
  EXIT_CANCELLED,
  EXIT_FAILED,
  EXIT_USAGE,
  modelFlags,
  options,
} from "./cli-context.js";
import { pendingCommand, resumeCommand } from "./cli-resume.js";
import { mcpCommand, runCommand } from "./cli-run.js";
import { chooseModel, ModelSetupError } from "./models.js";
import { LiveStatus, makeStyle, Printer, wantsColour } from "./printer.js";
import { dbPath, shownPath, UsageError, WAIT_TIMEOUT_MS } from "./setup.js";
import { printable } from "./terminal-text.js";

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
