import { CliError } from "../cli-error.js";
import { type Command, needs } from "../command.js";
import { EXIT } from "../exit-codes.js";
import { actorOf } from "./answer.js";

export const cancel: Command = {
  words: ["cancel"],
  summary: "cancel a run (and its sub-agents' runs)",
  usage: "<runId> [--reason <text>] --by <who>",
  help: `Cancels a run: a waiting, ready, expired or failed run ends cancelled at once, its open
requests cancelled; a running one is marked, and its worker stops it at its next lease
renewal. Who cancelled (--by) and why are kept.

Options:
  --reason <text>  why (kept with the run and in its cancelled event)
  --by <who>       required: who cancels

Exit codes: 3 no such run; 5 the run is done (nothing to cancel).

Example:
  toolnexus cancel run_8Jx2 --reason "customer withdrew" --by alice --store ./runs.db`,
  options: { reason: { type: "string" }, by: { type: "string" } },
  positionals: ["runId"],
  async run({ positionals, values, store, out }) {
    const runId = positionals[0]!;
    const by = actorOf(values);
    const request = typeof values.reason === "string" ? { by, reason: values.reason } : { by };
    const receipt = await needs(store, "cancel", "cancel")(runId, request);
    if (receipt.outcome === "finished") {
      throw new CliError(
        "run_finished",
        `run ${runId} is ${receipt.state}: there is nothing to cancel`,
        EXIT.refused,
      );
    }
    if (out.json) {
      out.printJson(receipt);
      return EXIT.ok;
    }
    const said = {
      cancelled: `run ${runId} is cancelled`,
      requested: `run ${runId} is running: its worker stops it at its next lease renewal`,
      already_cancelled: `run ${runId} was already cancelled: nothing changed`,
    }[receipt.outcome];
    out.print(`${said}\n`);
    return EXIT.ok;
  },
};
