import { followRunEvents } from "@toolnexus/core";
import { usage } from "../cli-error.js";
import type { Command } from "../command.js";
import { describeEvent } from "../describe.js";
import { EXIT } from "../exit-codes.js";
import { oneLine } from "../format.js";

export const runsFollow: Command = {
  words: ["runs", "follow"],
  summary: "print a run's events as they are recorded, until it ends or Ctrl-C",
  usage: "<runId> [--after <offset>]",
  help: `Prints the run's recorded events, then each new one as any process records it,
until the run ends (done, failed, cancelled) or Ctrl-C (exit code 130). A run that
waits for answers stays followed: answer it from another terminal.

Options:
  --after <offset>  start after this event offset (default 0: from the first)

With --json: one JSON object per line (JSON Lines), each a recorded event.

Example:
  toolnexus runs follow run_8Jx2 --store ./runs.db --json | jq .type`,
  options: { after: { type: "string" } },
  positionals: ["runId"],
  async run({ positionals, values, store, out, signal }) {
    const runId = positionals[0]!;
    let after = 0;
    if (typeof values.after === "string") {
      if (!/^\d{1,15}$/.test(values.after)) {
        throw usage(
          `--after takes an event offset, a whole number of 0 or more, not "${oneLine(values.after, 40)}"`,
        );
      }
      after = Number(values.after);
    }
    const options = signal === undefined ? { after } : { after, signal };
    for await (const event of followRunEvents(store, runId, options)) {
      if (out.json) out.printJson(event);
      else {
        out.print(
          `${String(event.offset).padStart(4)}  ${event.at}  ${out.paint("cyan", event.type.padEnd(16))} ${describeEvent(event)}`.trimEnd() +
            "\n",
        );
      }
    }
    return signal?.aborted === true ? EXIT.interrupted : EXIT.ok;
  },
};
