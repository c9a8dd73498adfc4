// Public API of @toolnexus/cli: the `toolnexus` command as a function, for scripts and tests.
export { EXIT, type ExitCode } from "./exit-codes.js";
export type { CliIo } from "./io.js";
export { DATABASE_URL_ENV, SCHEMA_ENV } from "./open-store.js";
export { runCli } from "./run-cli.js";
