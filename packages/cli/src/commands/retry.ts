import { CliError } from "../cli-error.js";
import { type Command, needs } from "../command.js";
import { EXIT } from "../exit-codes.js";

export const retry: Command = {
  words: ["retry"],
  summary: "hand a failed run back to the workers",
  usage: "<runId>",
  help: `Makes a failed run ready: the next worker that polls its store continues it from its
last checkpoint (a worker needs the run's tools and model, which this command does not
have). Its failure count starts again from 0, so the worker's retry budget applies anew;
its last error stays visible in runs show.

Exit codes: 3 no such run; 5 the run has not failed.

Example:
  toolnexus retry run_8Jx2 --store ./runs.db`,
  options: {},
  positionals: ["runId"],
  async run({ positionals, store, out }) {
    const runId = positionals[0]!;
    const receipt = await needs(store, "retry", "retry")(runId);
    if (receipt.outcome === "not_failed") {
      throw new CliError(
        "run_not_failed",
        `run ${runId} is ${receipt.state}, not failed: only a failed run can be retried`,
        EXIT.refused,
      );
    }
    if (out.json) out.printJson(receipt);
    else out.print(`run ${runId} is ready: the next worker polling the store continues it\n`);
    return EXIT.ok;
  },
};
