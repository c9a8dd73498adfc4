// `pnpm demo` off a terminal (CI, a pipe): the whole story runs, answered by flags or by the
// defaults a flag asks for, in plain text, and exits 0. With no flag, nobody decides anything.
import { describe, expect, it } from "vitest";
import { COLOUR_CODE, runDemo } from "./processes.js";

describe("pnpm demo off a TTY", () => {
  it("with --defaults, runs the whole story on the form's defaults and exits 0", async () => {
    const { code, stdout, stderr } = await runDemo(["--defaults"]);
    expect(code, stderr).toBe(0);
    // Plain text for a log: no colour, no spinner.
    expect(stdout).not.toMatch(COLOUR_CODE);
    expect(stdout).not.toMatch(/\r|running fetch_status|[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);

    // whoami reads agent and session from its context.
    expect(stdout).toMatch(/✓ whoami release-assistant@rel-[0-9a-f]{8}/);
    // Every call shows the context the loop filled in, and the tools show their budget.
    expect(stdout).toMatch(
      /ctx: agent=release-assistant session=rel-\w+ message=msg_1 call=call_1_1/,
    );
    expect(stdout).toContain("fetch_status[api] sees ctx: timeout=1000ms signal=live");
    // One status call fits its budget ...
    expect(stdout).toContain("✓ fetch_status[api] api: healthy, running 2.4.0");
    // ... the other is stopped by the loop, and the tool sees its signal abort.
    expect(stdout).toMatch(
      /✂ fetch_status\[billing\]: ctx\.signal aborted after \d+ms \(TimeoutError: timed out after 1000ms\)/,
    );
    expect(stdout).toContain(
      "✗ fetch_status[billing] timed out after 1000ms — stopped by the loop at its budget",
    );
    // deploy suspends with an input request; no terminal, so the default answers, as --defaults
    // said it may, and says so.
    expect(stdout).toContain(
      "⏸ deploy[2.4.1] needs a person (input): Which environment should 2.4.1 go to?",
    );
    expect(stdout).toContain(
      "no terminal to ask: used the default env=staging, notify=true, as --defaults says",
    );
    expect(stdout).toContain('answer={"env":"staging","notify":true}');
    expect(stdout).toContain("✓ deploy[2.4.1] deployed 2.4.1 to staging");
    // rollback needs approval before it runs; with nobody to ask and no --approve, nobody gave
    // it, so it is declined and the rollback never runs.
    expect(stdout).toContain(
      '⏸ rollback[staging] needs a person (approval): Allow rollback to run with {"env":"staging","to":"2.4.0"}?',
    );
    expect(stdout).toContain(
      "no terminal to ask: declined, as nobody approved it (pass --approve yes to approve)",
    );
    expect(stdout).toContain("✗ rollback[staging] declined/expired:");
    expect(stdout).not.toContain("rolled staging back");
    // The final answer, and the closing line.
    expect(stdout).toContain("assistant › Rollback not done: it was not approved.");
    expect(stdout).toContain(
      "✓ done 4 model turns, 5 tool results, 1 timed out, 2 questions (1 answered with the form's defaults (--defaults), 1 declined with nobody to ask)",
    );
    // The changelog writer, a sub-agent: the assistant's call, the sub-agent's own turns and
    // tool (with its own agent in the context, the assistant's session) under it, then its notes.
    expect(stdout).toMatch(
      /→ write_release_notes\[2\.4\.1\] \{"version":"2\.4\.1"\}\n\s+ctx: agent=release-assistant session=rel-\w+ message=msg_1 call=call_1_4/,
    );
    expect(stdout).toContain("┊ changelog-writer › Reading what changed in 2.4.1 since 2.4.0.");
    expect(stdout).toContain("┊ changelog-writer → list_changes[2.4.1]");
    expect(stdout).toMatch(
      /┊ {3}ctx: agent=changelog-writer session=rel-\w+ message=notes_msg_1 call=notes_call_1_1/,
    );
    expect(stdout).toContain(
      "✓ write_release_notes[2.4.1] Release notes for 2.4.1: checkout: batch the cart's price lookups (#412)",
    );
    expect(stdout).toContain("The changelog writer's notes are ready.");
    expect(stdout).toContain(
      ", 1 sub-agent call (changelog-writer: 2 model turns, 1 tool result), no tokens billed",
    );
  });

  it("asked to publish the notes: the sub-agent's approval is asked here, through the assistant", async () => {
    const { code, stdout, stderr } = await runDemo([
      "--prompt",
      "Please ship 2.4.1 and publish the release notes.",
      "--defaults",
      "--approve",
      "yes",
    ]);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain(
      '┊ changelog-writer ⏸ publish_notes[2.4.1] asks (approval): Allow publish_notes to run with {"version":"2.4.1"}? — passed up to the assistant',
    );
    expect(stdout).toContain(
      '⏸ write_release_notes[2.4.1] needs a person (approval): Allow publish_notes to run with {"version":"2.4.1"}?',
    );
    expect(stdout).toMatch(/request pnd_\w+:write_release_notes, waits up to 120 min/);
    expect(stdout).toContain(
      "asked by changelog-writer, a sub-agent (through write_release_notes): the answer goes back to it",
    );
    expect(stdout).toContain(
      "┊ changelog-writer ✓ publish_notes[2.4.1] published the 2.4.1 notes at https://shop.example/changelog/2.4.1",
    );
    expect(stdout).toContain("The changelog writer's notes are ready and published.");
    expect(stdout).toContain("✓ rollback[staging] rolled staging back to 2.4.0");
    expect(stdout).toContain(
      "✓ done 4 model turns, 5 tool results, 1 timed out, 3 questions (2 answered by a flag, 1 answered with the form's defaults (--defaults)), 1 sub-agent call (changelog-writer: 3 model turns, 2 tool results)",
    );
  });

  it("with no flag, decides nothing for a person: nothing is deployed, approved or published", async () => {
    const { code, stdout, stderr } = await runDemo([]);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain(
      "no terminal to ask, and no flag: every question is declined (--answer env=staging, --defaults, --approve yes)",
    );
    expect(stdout).toContain(
      "no terminal to ask: declined, as nobody answered it (answer with --answer env=staging, or pass --defaults to take the form's defaults)",
    );
    expect(stdout).not.toContain("deployed 2.4.1");
    expect(stdout).not.toContain("rolled staging back");
    expect(stdout).toContain("assistant › Understood: 2.4.1 was not deployed.");
    expect(stdout).toMatch(/✓ done .*1 question \(1 declined with nobody to ask\)/);
  });

  it("approves off a terminal only when told to, with --approve yes", async () => {
    const { code, stdout, stderr } = await runDemo(["--defaults", "--approve", "yes"]);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain("approved by --approve yes");
    expect(stdout).toContain("✓ rollback[staging] rolled staging back to 2.4.0");
    expect(stdout).toMatch(
      /assistant › Done\. 2\.4\.1 went to staging, .* staging is back on 2\.4\.0/,
    );
  });

  it("takes its answers from flags", async () => {
    const { code, stdout, stderr } = await runDemo([
      "--answer",
      "env=production",
      "--answer",
      "notify=no",
      "--approve",
      "no",
    ]);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain("answered from --answer env=production, notify=false");
    expect(stdout).toContain("✓ deploy[2.4.1] deployed 2.4.1 to production.");
    expect(stdout).toContain("declined by --approve no");
    expect(stdout).toContain(
      '✗ rollback[production] declined/expired: Allow rollback to run with {"env":"production","to":"2.4.0"}?',
    );
    expect(stdout).toContain("assistant › Rollback not done: it was not approved.");
  });

  it("refuses an answer that does not fit the request, naming the field", async () => {
    const { code, stdout, stderr } = await runDemo(["--answer", "env=moon"]);
    expect(code).toBe(2);
    expect(stderr).toContain('"env" must be one of staging, production (got "moon")');
    expect(stdout).not.toContain("deployed");
  });

  it("explains a bad flag and a missing adapter without a stack trace", async () => {
    const bad = await runDemo(["--approve", "maybe"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--approve takes yes or no");

    const unknown = await runDemo(["--provider", "nonsense"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown provider "nonsense"');
    expect(unknown.stderr).not.toContain("    at ");
  });
});
