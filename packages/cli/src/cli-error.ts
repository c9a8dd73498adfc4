import { EXIT, type ExitCode } from "./exit-codes.js";

/** An error the command reports as is: what went wrong and what to do, with its exit code. */
export class CliError extends Error {
  override readonly name = "CliError";
  readonly exitCode: ExitCode;
  /** A stable name for scripts reading `--json` errors. */
  readonly code: string;
  /** Each problem found, when there are several (an answer's data against its schema). */
  readonly issues: readonly string[];
  constructor(code: string, message: string, exitCode: ExitCode, issues: readonly string[] = []) {
    super(message);
    this.code = code;
    this.exitCode = exitCode;
    this.issues = issues;
  }
}

/** A usage error: a bad command line. */
export const usage = (message: string): CliError => new CliError("usage", message, EXIT.usage);
