// On a terminal the demo asks the person: a list to pick the environment from, y/n for the
// approval. These tests drive it through a real pseudo-terminal (util-linux `script`), typing
// only once each prompt is on the screen.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  COLOUR_CODE,
  type DemoProcess,
  runDemo,
  startDemo,
  stripAnsi,
  tempDir,
} from "./processes.js";

let tmp: ReturnType<typeof tempDir>;
let running: DemoProcess | undefined;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(async () => {
  await running?.stop();
  running = undefined;
  tmp.cleanup();
});

describe("the terminal prompt", () => {
  it("asks for the environment from a list and for the approval with y/n, in colour", async () => {
    running = startDemo([], { tty: true });
    const demo = running;
    await demo.waitFor("choose 1-2");
    const screen = stripAnsi(demo.stdout());
    expect(screen).toContain("? Which environment should 2.4.1 go to?");
    expect(screen).toContain("1) staging (default)");
    expect(screen).toContain("2) production");
    expect(screen).toContain("answers  asked here, in this terminal");
    demo.write("2\r");
    await demo.waitFor("Announce in #releases");
    demo.write("n\r");
    await demo.waitFor(/Allow rollback to run with .*production.*\[y\/n\]/);
    demo.write("y\r");
    expect(await demo.exited).toBe(0);

    const out = stripAnsi(demo.stdout());
    expect(out).toContain('answer={"env":"production","notify":false}');
    expect(out).toContain("✓ deploy[2.4.1] deployed 2.4.1 to production.");
    expect(out).toContain("✓ rollback[production] rolled production back to 2.4.0");
    expect(out).toContain("✓ done");
    expect(out).not.toContain("no terminal to ask");
    // A terminal gets colour, and a spinner with the elapsed time of the calls still running
    // (billing hangs until the loop stops it at 1000 ms), erased before the next line.
    expect(demo.stdout()).toMatch(COLOUR_CODE);
    const ESC = String.fromCharCode(27);
    expect(demo.stdout()).toContain(`\r${ESC}[2K${ESC}[36m  `);
    expect(stripAnsi(demo.stdout())).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] running fetch_status\[billing\] 0\.\ds/);
    expect(demo.stdout()).not.toMatch(/running deploy/);
  });

  it("re-asks on a wrong key, takes the default on Enter, and respects NO_COLOR", async () => {
    running = startDemo([], { tty: true, env: { NO_COLOR: "1" } });
    const demo = running;
    await demo.waitFor("choose 1-2");
    demo.write("7\r");
    await demo.waitFor("type a number from 1 to 2");
    await demo.waitForCount("choose 1-2", 2);
    demo.write("\r");
    await demo.waitFor("Announce in #releases");
    demo.write("\r");
    await demo.waitFor(/Allow rollback.*\[y\/n\]/);
    demo.write("maybe\r");
    await demo.waitFor("please answer y or n");
    await demo.waitForCount("Allow rollback to run with", 3);
    demo.write("n\r");
    expect(await demo.exited).toBe(0);
    const out = stripAnsi(demo.stdout());
    expect(out).toContain('answer={"env":"staging","notify":true}');
    expect(out).toContain("Rollback not done: it was not approved.");
    expect(demo.stdout()).not.toMatch(COLOUR_CODE);
  });

  it("--interactive reads the answers from standard input when it is not a terminal", async () => {
    running = startDemo(["--interactive"]);
    const demo = running;
    // Typed ahead, all at once: each line answers the next question.
    demo.write("2\nno\ny\n");
    expect(await demo.exited).toBe(0);
    const out = demo.stdout();
    expect(out).toContain("choose 1-2 [1]: 2");
    expect(out).toContain("? Announce in #releases [Y/n] no");
    expect(out).toContain("✓ deploy[2.4.1] deployed 2.4.1 to production.");
    expect(out).toContain("✓ rollback[production] rolled production back to 2.4.0");
    expect(out).not.toMatch(COLOUR_CODE);
  });

  it("resume in a terminal asks the person too", async () => {
    const db = tmp.file("demo.db");
    const halted = await runDemo(["--durable", "--db", db]);
    expect(halted.code, halted.stderr).toBe(0);
    const id = /demo resume (pnd_\w+)/.exec(halted.stdout)![1]!;

    running = startDemo(["resume", id, "--db", db], { tty: true });
    const demo = running;
    await demo.waitFor("choose 1-2");
    demo.write("1\r");
    await demo.waitFor("Announce in #releases");
    demo.write("y\r");
    expect(await demo.exited).toBe(0);
    const out = stripAnsi(demo.stdout());
    expect(out).toContain("✓ deploy[2.4.1] deployed 2.4.1 to staging; announced in #releases.");
    expect(out).toMatch(/demo resume pnd_\w+ --approve yes --db /);
  });
});
