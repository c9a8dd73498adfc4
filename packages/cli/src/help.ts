import type { Command } from "./command.js";
import { DATABASE_URL_ENV, SCHEMA_ENV } from "./open-store.js";

const COMMON = `Store (every command):
  --store <file>     a SQLite store file (never created by this command)
  (no --store)       the PostgreSQL connection string in ${DATABASE_URL_ENV}, a URL
                     (postgres://user:password@host:5432/db; key=value strings are not
                     supported); never taken on the command line, and never printed
  --schema <name>    the PostgreSQL schema (default ${SCHEMA_ENV}, else "toolnexus")

Output:
  --json             JSON for scripts (runs follow: one JSON object per line)
  --help, -h         this help
  Colours only when standard output is a terminal and NO_COLOR is unset.`;

const EXITS = `Exit codes: 0 done; 1 unexpected error; 2 usage; 3 unknown run or request id;
4 store unusable (missing file, server unreachable, credentials refused); 5 refused
(answer invalid or conflicting, run not failed, run finished); 130 interrupted.`;

export function commandLine(command: Command): string {
  return `toolnexus ${command.words.join(" ")} ${command.usage}`.trimEnd();
}

/** `toolnexus --help`. */
export function mainHelp(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.words.join(" ").length));
  const list = commands.map((c) => `  ${c.words.join(" ").padEnd(width)}  ${c.summary}`).join("\n");
  return `toolnexus: operate durable agent runs in a SQLite file or a PostgreSQL database

Usage: toolnexus <command> [arguments] [--store <file>] [--json]

Commands:
${list}

Run toolnexus <command> --help for a command's options and an example.

${COMMON}

${EXITS}
`;
}

/** `toolnexus <command> --help`. */
export function commandHelp(command: Command): string {
  return `Usage: ${commandLine(command)}

${command.help}

${COMMON}

${EXITS}
`;
}
