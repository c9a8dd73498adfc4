import {
  type JournalEntry,
  MAX_EVENTS_PER_READ,
  type RecordedRunEvent,
  type RunInfo,
  RunNotFoundError,
  type RunStore,
} from "@toolnexus/core";
import { type Command, needs } from "../command.js";
import { describeEvent, describeJournalEntry, describeMessage } from "../describe.js";
import { shortAge } from "../durations.js";
import { EXIT } from "../exit-codes.js";
import { oneLine, type Paint, stateColour, table, when } from "../format.js";

/** The most events `runs show` reads: a run that recorded more shows its first ones and says so. */
export const MAX_SHOWN_EVENTS = 5_000;

async function eventsOf(store: RunStore, runId: string): Promise<RecordedRunEvent[]> {
  const read = needs(store, "readEvents", "runs show");
  const events: RecordedRunEvent[] = [];
  let after = 0;
  while (events.length < MAX_SHOWN_EVENTS) {
    const page = await read(runId, after, MAX_EVENTS_PER_READ);
    events.push(...page);
    if (page.length < MAX_EVENTS_PER_READ) break;
    after = page[page.length - 1]!.offset;
  }
  return events;
}

export const runsShow: Command = {
  words: ["runs", "show"],
  summary: "show a run: transcript, journal, requests and answers, events, last error",
  usage: "<runId>",
  help: `Shows one run: its state and identity, its last error, who cancelled it, its
transcript (the checkpoint's, or the result's once done), the journal of the step in
flight, the requests of its last halt with who answered what and when, and its events.

With --json: { run, journal, events } (run as RunStore.getRun returns it).

Example:
  toolnexus runs show run_8Jx2 --store ./runs.db`,
  options: {},
  positionals: ["runId"],
  async run({ positionals, store, out }) {
    const runId = positionals[0]!;
    const run = await store.getRun(runId);
    if (run === undefined) throw new RunNotFoundError(runId);
    const journal = await needs(store, "readJournal", "runs show")(runId);
    const events = await eventsOf(store, runId);
    if (out.json) {
      out.printJson({ run, journal, events });
      return EXIT.ok;
    }
    out.print(render(run, journal, events, out.paint));
    return EXIT.ok;
  },
};

function render(
  run: RunInfo,
  journal: readonly JournalEntry[],
  events: readonly RecordedRunEvent[],
  paint: Paint,
): string {
  const now = Date.now();
  const at = (iso: string | undefined) => when(iso, now, shortAge);
  const heading = (title: string) => `\n${paint("bold", title)}`;
  const lines: string[] = [];
  lines.push(
    `${paint("bold", "Run")} ${oneLine(run.runId, 200)}  ${paint(stateColour(run.state), run.state)}`,
  );
  const facts: [string, string][] = [
    ["agent", run.agent ?? "-"],
    ["session", run.sessionId ?? "-"],
    ["created", at(run.createdAt)],
    ["changed", at(run.updatedAt)],
  ];
  if (run.owner !== undefined)
    facts.push(["worker", `${run.owner}, lease until ${at(run.leaseExpiresAt)}`]);
  facts.push(["failures", String(run.failures)]);
  if (run.lastError !== undefined) {
    facts.push([
      "last error",
      `${run.lastError.code}: ${run.lastError.message} (${at(run.lastError.at)})`,
    ]);
  }
  if (run.cancel !== undefined) {
    const who = run.cancel.by === undefined ? "" : ` by ${run.cancel.by}`;
    const why = run.cancel.reason === undefined ? "" : `: ${run.cancel.reason}`;
    facts.push(["cancel", `${at(run.cancel.at)}${who}${why}`]);
  }
  if (run.result !== undefined && run.result.status === "done") {
    facts.push(["result", oneLine(run.result.text, 200)]);
  }
  for (const [name, value] of facts) lines.push(`  ${name.padEnd(10)} ${oneLine(value, 200)}`);

  const messages = run.checkpoint?.messages ?? run.result?.messages ?? [];
  lines.push(heading(`Transcript (${messages.length} messages)`));
  messages.forEach((message, i) => {
    lines.push(`  ${String(i + 1).padStart(3)}  ${describeMessage(message)}`);
  });

  lines.push(heading(`Journal of the step in flight (${journal.length})`));
  for (const entry of journal) lines.push(`  ${describeJournalEntry(entry)}`);
  if (journal.length === 0) lines.push("  (none: no call finished since the last checkpoint)");

  lines.push(heading(`Requests (${run.requests.length})`));
  if (run.requests.length > 0) {
    const rows = run.requests.map((info) => {
      const answer =
        info.answer === undefined
          ? "-"
          : info.answer.ok
            ? `ok${info.answer.data === undefined ? "" : ` ${JSON.stringify(info.answer.data)}`}`
            : `not ok (${info.answer.reason ?? "declined"})`;
      return [
        oneLine(info.request.id, 40),
        oneLine(info.request.kind, 16),
        { text: info.state, colour: stateColour(info.state) },
        oneLine(info.request.prompt, 50),
        oneLine(answer, 50),
        oneLine(info.answeredBy ?? "-", 30),
        info.answeredAt === undefined ? "-" : at(info.answeredAt),
        info.expiresAt === undefined ? "-" : at(info.expiresAt),
      ];
    });
    lines.push(
      table(
        ["REQUEST", "KIND", "STATE", "PROMPT", "ANSWER", "BY", "ANSWERED", "EXPIRES"],
        rows,
        paint,
      )
        .trimEnd()
        .split("\n")
        .map((line) => `  ${line}`)
        .join("\n"),
    );
  }

  const more =
    events.length >= MAX_SHOWN_EVENTS
      ? ` (the first ${MAX_SHOWN_EVENTS}; runs follow --json reads all)`
      : "";
  lines.push(heading(`Events (${events.length})${more}`));
  for (const event of events) {
    lines.push(
      `  ${String(event.offset).padStart(4)}  ${event.at}  ${paint("cyan", event.type.padEnd(16))} ${describeEvent(event)}`.trimEnd(),
    );
  }
  return `${lines.join("\n")}\n`;
}
