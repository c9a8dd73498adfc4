#!/usr/bin/env node
import { processIo } from "./io.js";
import { runCli } from "./run-cli.js";

// Ctrl-C stops `runs follow` cleanly (exit code 130); a second Ctrl-C ends the process at once.
const controller = new AbortController();
process.once("SIGINT", () => {
  controller.abort();
  process.once("SIGINT", () => process.exit(130));
});

runCli(process.argv.slice(2), processIo(controller.signal)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // runCli reports every error itself; this is a bug, shown without its details.
    process.stderr.write(
      `toolnexus: internal error (${error instanceof Error ? error.name : "unknown"})\n`,
    );
    process.exitCode = 1;
  },
);
