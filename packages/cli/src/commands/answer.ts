import { MAX_ACTOR_CHARS } from "@toolnexus/core";
import { answerOf, DEFAULT_MAX_BODY_BYTES, recordAnswer } from "@toolnexus/web";
import { CliError, usage } from "../cli-error.js";
import type { Command, OptionValues } from "../command.js";
import { EXIT } from "../exit-codes.js";
import { oneLine } from "../format.js";

/** Who acts (`--by`): required, one line, at most the length a store keeps. */
export function actorOf(values: OptionValues): string {
  const by = values.by;
  if (typeof by !== "string" || by.trim() === "") {
    throw usage(
      "--by <who> is required: the person (or system) answering, kept in the audit trail",
    );
  }
  if (by.length > MAX_ACTOR_CHARS || /[\r\n]/.test(by)) {
    throw usage(`--by takes one line of at most ${MAX_ACTOR_CHARS} characters`);
  }
  return by;
}

/** The answer's body from the flags: exactly one of --approve, --decline, --data. */
function bodyOf(values: OptionValues): Record<string, unknown> {
  const chosen = (["approve", "decline", "data"] as const).filter(
    (flag) => values[flag] !== undefined && values[flag] !== false,
  );
  if (chosen.length !== 1) {
    throw usage("give exactly one of --approve, --decline or --data '<json>'");
  }
  if (values.reason !== undefined && values.decline !== true) {
    throw usage("--reason goes with --decline (it is kept as the answer's data.reason)");
  }
  if (values.approve === true) return { ok: true };
  if (values.decline === true) {
    const body: Record<string, unknown> = { ok: false, reason: "declined" };
    if (typeof values.reason === "string") body.data = { reason: values.reason };
    return body;
  }
  const text = String(values.data);
  if (Buffer.byteLength(text) > DEFAULT_MAX_BODY_BYTES) {
    throw usage(`--data is larger than ${DEFAULT_MAX_BODY_BYTES} bytes`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw usage(
      `--data is not JSON (${error instanceof Error ? error.message : String(error)}): quote it, e.g. --data '{"env":"staging"}'`,
    );
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw usage(`--data must be a JSON object, e.g. --data '{"env":"staging"}'`);
  }
  return { ok: true, data };
}

export const answer: Command = {
  words: ["answer"],
  summary: "answer a waiting request (approve, decline, or data checked against its schema)",
  usage: "<requestId> (--approve | --decline [--reason <text>] | --data '<json>') --by <who>",
  help: `Records an answer to a waiting request, as the web handler does: the data is checked
against the JSON Schema the request carries and every problem is listed; who answered
(--by) and when are kept with it. The run becomes ready for a worker.

Options:
  --approve          ok: true
  --decline          ok: false (reason "declined")
  --reason <text>    with --decline: kept as the answer's data.reason
  --data '<json>'    ok: true with this data (a JSON object, checked against the schema)
  --by <who>         required: who answers (kept in the audit trail and the answered event)

Exit codes: 3 no such request; 5 the data does not match the schema, or the request
already has another answer, expired, or its run was cancelled.

Example:
  toolnexus answer req_41 --data '{"env":"staging"}' --by alice@example.com --store ./runs.db`,
  options: {
    approve: { type: "boolean" },
    decline: { type: "boolean" },
    reason: { type: "string" },
    data: { type: "string" },
    by: { type: "string" },
  },
  positionals: ["requestId"],
  async run({ positionals, values, store, out }) {
    const requestId = positionals[0]!;
    const body = bodyOf(values);
    const by = actorOf(values);
    const info = await store.getRequest(requestId);
    if (info === undefined) {
      throw new CliError(
        "request_not_found",
        `no request "${oneLine(requestId, 80)}" is in the store: check the id (toolnexus runs show <runId> lists a run's requests)`,
        EXIT.notFound,
      );
    }
    const parsed = answerOf(requestId, body);
    const receipt = await recordAnswer(store, info.request, parsed, by);
    if (out.json) {
      out.printJson(receipt);
      return EXIT.ok;
    }
    out.print(
      receipt.duplicate
        ? `request ${receipt.requestId} already had this answer: nothing changed (run ${receipt.runId} is ${receipt.state})\n`
        : `answered request ${receipt.requestId} (${parsed.ok ? "ok" : "declined"}) as ${by}: run ${receipt.runId} is ${receipt.state}\n`,
    );
    return EXIT.ok;
  },
};
