// `pnpm demo --durable`: the run halts into SQLite and each continuation is a new process that
// shares nothing with the others but the file.
import { readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { sqliteStore } from "@toolnexus/store-sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runDemo, tempDir } from "./processes.js";

interface Listed {
  request: { id: string; kind: string; prompt: string };
  sessionId: string;
  agent: string;
  state: string;
  expiresAt?: string;
}

let tmp: ReturnType<typeof tempDir>;
let db: string;
beforeEach(() => {
  tmp = tempDir();
  db = tmp.file("demo.db");
});
afterEach(() => tmp.cleanup());

/** What waits, read straight from the file (the CLI's own listing is checked once above). */
function waitingIds(): string[] {
  const store = sqliteStore({ path: db });
  try {
    return store.list({ state: "waiting" }).map((item) => item.request.id);
  } finally {
    store.close();
  }
}

async function pendingJson(): Promise<Listed[]> {
  const listed = await runDemo(["pending", "--json", "--db", db]);
  expect(listed.code, listed.stderr).toBe(0);
  return JSON.parse(listed.stdout) as Listed[];
}

describe("the durable path across processes", () => {
  it("halts, lists, resumes in new processes to the end, and refuses a changed answer", async () => {
    // 1. Halt: the process exits 0 and prints the exact command to continue.
    const halted = await runDemo(["--durable", "--db", db]);
    expect(halted.code, halted.stderr).toBe(0);
    expect(halted.stdout).toContain("✗ fetch_status[billing] timed out after 1000ms");
    expect(halted.stdout).toContain("⏸ halted");
    // Started straight from node (not as the root `demo` script), it prints the README's command.
    const first =
      /\n {4}npx -y pnpm@12\.4\.2 demo resume (pnd_\w+) --answer env=staging --db (\S+)\n/.exec(
        halted.stdout,
      );
    expect(first, halted.stdout).not.toBeNull();
    const firstId = first![1]!;
    expect(first![2]).toBe(db);
    expect(halted.stdout).not.toContain("deployed");

    // 2. List: another process sees what waits, for a person and as JSON.
    const human = await runDemo(["pending", "--db", db]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain("1 request(s) waiting");
    expect(human.stdout).toContain(`${firstId}  input  Which environment should 2.4.1 go to?`);
    expect(human.stdout).toMatch(
      /agent release-assistant · session rel-\w+ · \d+s ago · expires in \d+ min/,
    );
    const waiting = await pendingJson();
    expect(waiting).toMatchObject([
      { request: { id: firstId, kind: "input" }, agent: "release-assistant", state: "waiting" },
    ]);

    // 3. Resume in a new process: deploy runs with the answer, then the run halts again, this
    //    time for the rollback's approval.
    const resumed = await runDemo(["resume", firstId, "--answer", "env=staging", "--db", db]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain("this process did not start the run");
    expect(resumed.stdout).toContain("✓ deploy[2.4.1] deployed 2.4.1 to staging");
    expect(resumed.stdout).toContain("⏸ rollback[staging] needs a person (approval)");
    const second = /demo resume (pnd_\w+) --approve yes --db /.exec(resumed.stdout);
    expect(second, resumed.stdout).not.toBeNull();
    const secondId = second![1]!;
    expect(secondId).not.toBe(firstId);
    expect(waitingIds()).toEqual([secondId]);

    //    Off a terminal, resume without a flag neither grants nor refuses the approval: it says
    //    how to answer, records nothing, and the run keeps waiting.
    const unanswered = await runDemo(["resume", secondId, "--db", db]);
    expect(unanswered.code).toBe(2);
    expect(unanswered.stderr).toContain(
      `request ${secondId} asks for an approval ("Allow rollback to run with {"env":"staging","to":"2.4.0"}?") and there is no terminal to ask: add --approve yes or --approve no`,
    );
    expect(unanswered.stdout).not.toContain("rollback[staging] rolled");
    expect(waitingIds()).toEqual([secondId]);

    //    The same answer again (a retried command) is accepted as a duplicate: nothing runs
    //    twice, and the run is shown where it stands, waiting on the rollback.
    const repeated = await runDemo(["resume", firstId, "--answer", "env=staging", "--db", db]);
    expect(repeated.code, repeated.stderr).toBe(0);
    expect(repeated.stdout).toContain(
      `request ${firstId} was already answered (env=staging, notify=true); the same answer again changes nothing`,
    );
    expect(repeated.stdout).not.toContain("✓ deploy");
    expect(repeated.stdout).toContain(`demo resume ${secondId} --approve yes`);
    expect(waitingIds()).toEqual([secondId]);

    // 4. Resume again in yet another process: approved, rolled back, done.
    const done = await runDemo(["resume", secondId, "--approve", "yes", "--db", db]);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain("✓ rollback[staging] rolled staging back to 2.4.0");
    expect(done.stdout).toContain("assistant › Done. 2.4.1 went to staging");
    expect(done.stdout).toContain("✓ done");
    expect(waitingIds()).toEqual([]);

    // 5. A different answer to an answered request fails clearly, with a non-zero exit, and
    //    records and runs nothing.
    const again = await runDemo(["resume", firstId, "--answer", "env=production", "--db", db]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      `request ${firstId} was already answered differently (in another terminal, or in the inbox); an answer cannot be changed once recorded`,
    );
    expect(again.stdout).not.toContain("deployed");
    const againApproval = await runDemo(["resume", secondId, "--approve", "no", "--db", db]);
    expect(againApproval.code).toBe(1);
    expect(againApproval.stderr).toContain("was already answered differently");
    //    The same approval again changes nothing: the run had finished.
    const sameApproval = await runDemo(["resume", secondId, "--approve", "yes", "--db", db]);
    expect(sameApproval.code, sameApproval.stderr).toBe(0);
    expect(sameApproval.stdout).toContain("its run had already finished; nothing was run again");
    expect(sameApproval.stdout).not.toContain("✓ rollback");

    // An id that never existed is a different, equally clear error.
    const unknown = await runDemo(["resume", "pnd_doesnotexist", "--db", db]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`no request pnd_doesnotexist waits in ${db}`);
  });

  it("a question of the sub-agent halts the run; it is answered through the assistant's request, from another process", async () => {
    const halted = await runDemo([
      "--durable",
      "--db",
      db,
      "--prompt",
      "Please ship 2.4.1 and publish the release notes.",
    ]);
    expect(halted.code, halted.stderr).toBe(0);
    expect(halted.stdout).toContain(
      '⏸ write_release_notes[2.4.1] needs a person (approval): Allow publish_notes to run with {"version":"2.4.1"}?',
    );
    // The other calls of the turn finished before the halt.
    expect(halted.stdout).toContain("✗ fetch_status[billing] timed out after 1000ms");
    const command = /demo resume (pnd_\w+):write_release_notes --approve yes --db /.exec(
      halted.stdout,
    );
    expect(command, halted.stdout).not.toBeNull();
    const asked = command![1]!;
    const id = `${asked}:write_release_notes`;
    expect(halted.stdout).toContain(
      `approval asked by changelog-writer: Allow publish_notes to run with {"version":"2.4.1"}? (${id})`,
    );

    // The file holds two requests, the sub-agent's own and the assistant's; what a person sees
    // (and answers) is the assistant's one.
    expect(waitingIds().sort()).toEqual([asked, id].sort());
    const listed = await runDemo(["pending", "--db", db]);
    expect(listed.stdout).toContain("1 request(s) waiting");
    expect(listed.stdout).toMatch(
      /agent release-assistant, asked by changelog-writer · session rel-\w+ · \d+s ago/,
    );
    expect((await pendingJson()).map((item) => item.request.id)).toEqual([id]);
    // Answering the sub-agent's own request is refused, and records nothing.
    const inner = await runDemo(["resume", asked, "--approve", "yes", "--db", db]);
    expect(inner.code).toBe(1);
    expect(inner.stderr).toContain(`answer that one. Nothing was recorded`);
    expect(inner.stderr).toContain(`as request ${id}`);
    expect(waitingIds().sort()).toEqual([asked, id].sort());

    // Approved in a new process: the sub-agent continues from its checkpoint (publish_notes
    // runs), then the assistant's run, up to the deploy's question.
    const resumed = await runDemo(["resume", id, "--approve", "yes", "--db", db]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(
      "┊ changelog-writer ✓ publish_notes[2.4.1] published the 2.4.1 notes at https://shop.example/changelog/2.4.1",
    );
    expect(resumed.stdout).toContain(
      "✓ write_release_notes[2.4.1] Release notes for 2.4.1: checkout: batch the cart's price lookups (#412)",
    );
    // Nothing else of the first turn ran again.
    expect(resumed.stdout).not.toContain("→ whoami");
    expect(resumed.stdout).not.toContain("→ fetch_status");
    expect(resumed.stdout).not.toContain("→ list_changes");
    expect(resumed.stdout).toContain("⏸ deploy[2.4.1] needs a person (input)");
    const next = /demo resume (pnd_\w+) --answer env=staging --db /.exec(resumed.stdout)![1]!;
    expect(waitingIds()).toEqual([next]);

    const declined = await runDemo(["resume", next, "--decline", "--db", db]);
    expect(declined.code, declined.stderr).toBe(0);
    expect(declined.stdout).toContain("assistant › Understood: 2.4.1 was not deployed.");
    expect(waitingIds()).toEqual([]);
  });

  it("a file named by TOOLNEXUS_DEMO_DB is named in the printed commands, which work without it", async () => {
    const halted = await runDemo(["--durable"], { env: { TOOLNEXUS_DEMO_DB: db } });
    expect(halted.code, halted.stderr).toBe(0);
    const id = new RegExp(`demo resume (pnd_\\w+) --answer env=staging --db ${db}\n`).exec(
      halted.stdout,
    )?.[1];
    expect(id, halted.stdout).toBeDefined();
    expect(halted.stdout).toContain(`demo pending --db ${db}`);
    // Without the variable, the printed flags find the same file.
    const resumed = await runDemo(["resume", id!, "--answer", "env=staging", "--db", db]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain("✓ deploy[2.4.1] deployed 2.4.1 to staging");
  });

  it("keeps its files owner-only: a folder it makes 0700, the database, -wal, -shm and timeline 0600", async () => {
    const nested = tmp.file("made/by/the/demo/demo.db");
    const before = process.umask(0o022);
    try {
      const halted = await runDemo(["--durable", "--db", nested]);
      expect(halted.code, halted.stderr).toBe(0);
    } finally {
      process.umask(before);
    }
    const folder = dirname(nested);
    expect((statSync(folder).mode & 0o777).toString(8)).toBe("700");
    const files = readdirSync(folder);
    expect(files).toEqual(expect.arrayContaining(["demo.db", "demo.db-timeline.jsonl"]));
    for (const name of files) {
      expect(`${name} ${(statSync(join(folder, name)).mode & 0o777).toString(8)}`).toBe(
        `${name} 600`,
      );
    }
  });

  it("a declined input ends the run without deploying", async () => {
    const halted = await runDemo(["--durable", "--db", db]);
    expect(halted.code, halted.stderr).toBe(0);
    const id = /demo resume (pnd_\w+)/.exec(halted.stdout)![1]!;
    const declined = await runDemo(["resume", id, "--decline", "--db", db]);
    expect(declined.code, declined.stderr).toBe(0);
    expect(declined.stdout).toContain("declined by --decline");
    expect(declined.stdout).toContain("assistant › Understood: 2.4.1 was not deployed.");
    expect(waitingIds()).toEqual([]);
  });
});
