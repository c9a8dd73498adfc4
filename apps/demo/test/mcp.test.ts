// `pnpm demo mcp`: a local MCP server (a real child process over stdio) lends the loop its tool,
// and its elicitation is answered the way the demo answers any request: a flag, the form's
// default, a refusal, or the person at a real terminal.
import { describe, expect, it } from "vitest";
import { runDemo, startDemo, stripAnsi } from "./processes.js";

describe("pnpm demo mcp", () => {
  it("off a terminal with --defaults, takes the form's default and says so", async () => {
    const { code, stdout, stderr } = await runDemo(["mcp", "--defaults"]);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain(
      "server calendar: connected over stdio, tools calendar_book_release_window",
    );
    expect(stdout).toContain('→ calendar_book_release_window({"release":"2.4.1"})');
    // The server's progress notification reached the run as a progress event.
    expect(stdout).toContain("… checking the calendar 1/2");
    expect(stdout).toContain("? Which deploy window for 2.4.1? (asked by MCP server calendar)");
    expect(stdout).toContain(
      "no terminal to ask: used the default slot=tomorrow 09:00, as --defaults says",
    );
    expect(stdout).toContain("✓ Booked 2.4.1 for tomorrow 09:00.");
  });

  it("off a terminal with no flag, books nothing: the server hears a decline", async () => {
    const { code, stdout, stderr } = await runDemo(["mcp"]);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain("no terminal to ask: declined, as nobody answered it");
    expect(stdout).not.toContain("✓ Booked");
    expect(stdout).toContain("✗ No window booked for 2.4.1 (decline).");
  });

  it("an --answer flag chooses the slot; --decline reaches the server as a decline", async () => {
    const chosen = await runDemo(["mcp", "--answer", "slot=today 16:00"]);
    expect(chosen.code, chosen.stderr).toBe(0);
    expect(chosen.stdout).toContain("answered from --answer slot=today 16:00");
    expect(chosen.stdout).toContain("✓ Booked 2.4.1 for today 16:00.");

    const declined = await runDemo(["mcp", "--decline"]);
    expect(declined.code, declined.stderr).toBe(0);
    expect(declined.stdout).toContain("declined by --decline");
    // The server saw action "decline" and said so in an error result.
    expect(declined.stdout).toContain("✗ No window booked for 2.4.1 (decline).");
  });

  it("a value that is not one of the form's choices is refused before anything is answered", async () => {
    const { code, stderr } = await runDemo(["mcp", "--answer", "slot=never"]);
    expect(code).toBe(2);
    expect(stderr).toContain('the answer to "Which deploy window for 2.4.1?" does not fit');
  });

  it("on a real terminal, asks the person and books what they chose", async () => {
    const demo = startDemo(["mcp", "--no-color"], { tty: true });
    try {
      await demo.waitFor("choose 1-2");
      demo.write("1\r");
      expect(await demo.exited).toBe(0);
      const out = stripAnsi(demo.stdout());
      expect(out).toContain("1) today 16:00");
      expect(out).toContain("✓ Booked 2.4.1 for today 16:00.");
    } finally {
      await demo.stop();
    }
  });
});
