/** Where the command reads its environment and writes its output (a terminal, or a test). */
export interface CliIo {
  /** Writes to standard output. */
  stdout(text: string): void;
  /** Writes to standard error. */
  stderr(text: string): void;
  /** The environment (`TOOLNEXUS_DATABASE_URL`, `NO_COLOR`…). Default: `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Whether to colour the output for people. Default: when standard output is a terminal and
   * `NO_COLOR` is unset or empty.
   */
  color?: boolean;
  /** Stops `runs follow` (the bin aborts it on Ctrl-C). */
  signal?: AbortSignal;
}

/** Colours for a terminal only, and never when `NO_COLOR` is set to anything (no-color.org). */
export function wantsColour(isTTY: boolean | undefined, noColor: string | undefined): boolean {
  return isTTY === true && (noColor === undefined || noColor === "");
}

/** The io of the `toolnexus` process: its standard streams and environment. */
export function processIo(signal?: AbortSignal): CliIo {
  const io: CliIo = {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    color: wantsColour(process.stdout.isTTY, process.env.NO_COLOR),
  };
  if (signal !== undefined) io.signal = signal;
  return io;
}
