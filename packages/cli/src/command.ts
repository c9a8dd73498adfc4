import type { RunStore } from "@toolnexus/core";
import type { ExitCode } from "./exit-codes.js";
import type { Paint } from "./format.js";

/** The options of a command, as `node:util` `parseArgs` takes them. */
export type OptionSpecs = Record<
  string,
  { type: "string" | "boolean"; short?: string; multiple?: false }
>;

/** The parsed values of a command's options. */
export type OptionValues = Record<string, string | boolean | undefined>;

/** Where a command writes: text for people (redacted), or JSON for scripts. */
export interface Output {
  /** `--json` was given. */
  readonly json: boolean;
  readonly paint: Paint;
  /** Writes text to standard output. */
  print(text: string): void;
  /** Writes one JSON document (or one JSON line) to standard output. */
  printJson(value: unknown): void;
}

/** What a command gets: its arguments, the opened store, the output, and Ctrl-C. */
export interface CommandContext {
  positionals: readonly string[];
  values: OptionValues;
  store: RunStore;
  out: Output;
  signal: AbortSignal | undefined;
}

/** One command of `toolnexus`. */
export interface Command {
  /** The words that name it: `["runs", "list"]`, `["answer"]`. */
  words: readonly string[];
  /** One line for `toolnexus --help`. */
  summary: string;
  /** The argument line: `<runId> [--reason <text>] --by <who>`. */
  usage: string;
  /** The rest of `toolnexus <command> --help`: what it does, its options, an example. */
  help: string;
  options: OptionSpecs;
  /** The names of its positional arguments, all required. */
  positionals: readonly string[];
  run(context: CommandContext): Promise<ExitCode>;
}

/** A store method a command needs, or a clear error when the store lacks it. */
export function needs<K extends keyof RunStore>(
  store: RunStore,
  member: K,
  what: string,
): NonNullable<RunStore[K]> {
  const found = store[member];
  if (typeof found !== "function") {
    throw Object.assign(new Error(`this store has no ${String(member)}(), which ${what} needs`), {
      name: "StoreUnsupportedError",
    });
  }
  return (found as (...args: unknown[]) => unknown).bind(store) as NonNullable<RunStore[K]>;
}
