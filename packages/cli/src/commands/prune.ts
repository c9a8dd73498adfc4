import { usage } from "../cli-error.js";
import type { Command } from "../command.js";
import { parseDuration } from "../durations.js";
import { EXIT } from "../exit-codes.js";

export const prune: Command = {
  words: ["prune"],
  summary: "delete finished runs older than an age",
  usage: "--older-than <age>",
  help: `Deletes done, failed and cancelled runs that finished at least this long ago, with
their requests, journals and events. Runs still going are never touched.

Options:
  --older-than <age>  required: 90s, 15m, 2h, 30d, 1w

Example:
  toolnexus prune --older-than 30d --store ./runs.db`,
  options: { "older-than": { type: "string" } },
  positionals: [],
  async run({ values, store, out }) {
    const age = values["older-than"];
    if (typeof age !== "string") {
      throw usage("--older-than <age> is required, e.g. --older-than 30d");
    }
    const pruned = await store.prune({ olderThan: parseDuration(age, "--older-than") });
    if (out.json) out.printJson({ pruned });
    else out.print(`pruned ${pruned} finished run${pruned === 1 ? "" : "s"} older than ${age}\n`);
    return EXIT.ok;
  },
};
