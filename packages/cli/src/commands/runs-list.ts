import { RUN_STATES, type RunFilter, type RunState } from "@toolnexus/core";
import { usage } from "../cli-error.js";
import { type Command, needs } from "../command.js";
import { parseDuration, shortAge } from "../durations.js";
import { EXIT } from "../exit-codes.js";
import { oneLine, stateColour, table } from "../format.js";

export const runsList: Command = {
  words: ["runs", "list"],
  summary: "list runs by state, agent, session and age, newest change first",
  usage: "[--state <state>] [--agent <name>] [--session <id>] [--older-than <age>] [--limit <n>]",
  help: `Lists runs, the most recently changed first.

Options:
  --state <state>     ${RUN_STATES.join(", ")}
  --agent <name>      the agent's name (createClient({ agent }))
  --session <id>      the session id
  --older-than <age>  unchanged for at least this long: 90s, 15m, 2h, 30d, 1w
                      (a waiting run last changed when it halted)
  --limit <n>         at most n runs (default 100, at most 1000)

Example:
  toolnexus runs list --store ./runs.db --state waiting --agent support --older-than 2h`,
  options: {
    state: { type: "string" },
    agent: { type: "string" },
    session: { type: "string" },
    "older-than": { type: "string" },
    limit: { type: "string" },
  },
  positionals: [],
  async run({ values, store, out }) {
    const filter: RunFilter = {};
    if (typeof values.state === "string") {
      if (!RUN_STATES.includes(values.state as RunState)) {
        throw usage(
          `--state takes one of ${RUN_STATES.join(", ")}, not "${oneLine(values.state, 40)}"`,
        );
      }
      filter.state = values.state as RunState;
    }
    if (typeof values.agent === "string") filter.agent = values.agent;
    if (typeof values.session === "string") filter.sessionId = values.session;
    if (typeof values["older-than"] === "string") {
      filter.olderThan = parseDuration(values["older-than"], "--older-than");
    }
    if (typeof values.limit === "string") {
      const limit = Number(values.limit);
      if (!/^\d+$/.test(values.limit) || limit < 1 || limit > 1000) {
        throw usage(
          `--limit takes a whole number from 1 to 1000, not "${oneLine(values.limit, 40)}"`,
        );
      }
      filter.limit = limit;
    }
    const runs = await needs(store, "listRuns", "runs list")(filter);
    if (out.json) {
      out.printJson(runs);
      return EXIT.ok;
    }
    if (runs.length === 0) {
      out.print("no runs match\n");
      return EXIT.ok;
    }
    const now = Date.now();
    out.print(
      table(
        ["RUN", "STATE", "AGENT", "SESSION", "CHANGED", "FAILURES", "LAST ERROR"],
        runs.map((run) => [
          oneLine(run.runId, 40),
          { text: run.state, colour: stateColour(run.state) },
          oneLine(run.agent ?? "-", 20),
          oneLine(run.sessionId ?? "-", 24),
          `${shortAge(now - Date.parse(run.updatedAt))} ago`,
          String(run.failures),
          run.lastError === undefined
            ? "-"
            : oneLine(`${run.lastError.code}: ${run.lastError.message}`, 60),
        ]),
        out.paint,
      ),
    );
    return EXIT.ok;
  },
};
