import { parseArgs } from "node:util";
import { type CliError, usage } from "./cli-error.js";
import type { Command, Output } from "./command.js";
import { COMMANDS } from "./commands/index.js";
import { EXIT, type ExitCode } from "./exit-codes.js";
import { explain } from "./explain.js";
import { oneLine, painter } from "./format.js";
import { commandHelp, commandLine, mainHelp } from "./help.js";
import { type CliIo, processIo } from "./io.js";
import { chooseStore, DATABASE_URL_ENV, openStore } from "./open-store.js";
import { redactor, redactValue, secretsOf } from "./secrets.js";

const COMMON_OPTIONS = {
  store: { type: "string" },
  schema: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** The command the words of `argv` name, and the arguments after them. */
function findCommand(argv: readonly string[]): { command: Command; rest: string[] } | undefined {
  for (const command of COMMANDS) {
    const { words } = command;
    if (words.every((word, i) => argv[i] === word)) {
      return { command, rest: argv.slice(words.length) };
    }
  }
  return undefined;
}

/**
 * Runs the `toolnexus` command with `argv` (the arguments after the program name) and
 * resolves to its exit code; it never throws and never calls `process.exit`. Output goes to
 * `io` (default: this process's streams), with every secret of the connection string masked.
 *
 * @example
 * ```ts
 * const code = await runCli(["runs", "list", "--store", "./runs.db", "--json"], {
 *   stdout: (text) => chunks.push(text),
 *   stderr: (text) => process.stderr.write(text),
 * });
 * ```
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<ExitCode> {
  const env = io.env ?? process.env;
  // Until the store is chosen, mask whatever connection string the environment holds.
  let redact = redactor(safeSecrets(env));
  const jsonLine = (value: unknown) => redact(`${JSON.stringify(redactValue(value, redact))}\n`);
  const json = argv.includes("--json");
  const fail = (error: CliError): ExitCode => {
    if (json) {
      // Redacted before it is serialized: JSON would escape a password's `"` or `\`.
      const body: Record<string, unknown> = { code: error.code, message: error.message };
      if (error.issues.length > 0) body.issues = error.issues;
      io.stderr(jsonLine({ error: body }));
    } else {
      const issues = error.issues.map((issue) => `\n  - ${issue}`).join("");
      io.stderr(redact(`toolnexus: ${error.message}${issues}\n`));
    }
    return error.exitCode;
  };

  if (argv.length === 0 || argv[0] === "--help" || argv[0] === "-h" || argv[0] === "help") {
    const text = mainHelp(COMMANDS);
    if (argv.length === 0) {
      io.stderr(text);
      return EXIT.usage;
    }
    io.stdout(text);
    return EXIT.ok;
  }
  const found = findCommand(argv);
  if (found === undefined) {
    const words = argv
      .slice(0, 2)
      .map((word) => oneLine(word, 40))
      .join(" ");
    return fail(usage(`unknown command "${words}": run toolnexus --help for the commands`));
  }
  const { command, rest } = found;
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...COMMON_OPTIONS, ...command.options },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    const why = error instanceof Error ? error.message.split("\n")[0]! : String(error);
    return fail(usage(`${why}; run toolnexus ${command.words.join(" ")} --help`));
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (values.help === true) {
    io.stdout(commandHelp(command));
    return EXIT.ok;
  }
  if (parsed.positionals.length !== command.positionals.length) {
    return fail(usage(`usage: ${commandLine(command)}`));
  }

  let opened: Awaited<ReturnType<typeof openStore>> | undefined;
  try {
    const choice = chooseStore(
      typeof values.store === "string" ? values.store : undefined,
      typeof values.schema === "string" ? values.schema : undefined,
      env,
    );
    redact = redactor([...choice.secrets, ...safeSecrets(env)]);
    opened = await openStore(choice);
    const paint = painter(io.color ?? false);
    const out: Output = {
      json: values.json === true,
      paint,
      print: (text) => io.stdout(redact(text)),
      printJson: (value) => io.stdout(jsonLine(value)),
    };
    return await command.run({
      positionals: parsed.positionals,
      values,
      store: opened.store,
      out,
      signal: io.signal,
    });
  } catch (error) {
    return fail(explain(error));
  } finally {
    await opened?.close().catch(() => {});
  }
}

/** The secrets of the connection string in the environment, if any (even one the command refuses). */
function safeSecrets(env: Readonly<Record<string, string | undefined>>): string[] {
  const url = env[DATABASE_URL_ENV];
  return url === undefined || url === "" ? [] : secretsOf(url);
}
