// The cut itself, and the content attributes that stay JSON within their cap.
import { describe, expect, it } from "vitest";
import { finalText, inputMessages, outputMessages, systemInstructions } from "./content.js";
import { capped, cut } from "./limits.js";
import type { TracedMessage } from "./seam.js";

/** A lone surrogate anywhere: text a cut broke in the middle of a character. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe("cut", () => {
  it("keeps a string at most the cap whole", () => {
    expect(cut("abc", 64)).toBe("abc");
    expect(cut("x".repeat(64), 64)).toBe("x".repeat(64));
  });

  it("cuts a longer string to exactly the cap, saying how many characters were cut", () => {
    const text = "x".repeat(1_000_000);
    const out = cut(text, 100);
    expect(out).toHaveLength(100);
    const removed = Number(/…\[cut: (\d+) characters\]$/.exec(out)?.[1]);
    expect(out.length - `…[cut: ${removed} characters]`.length + removed).toBe(text.length);
    expect(out.startsWith("xxxx")).toBe(true);
  });

  it("never splits a surrogate pair, wherever the cut falls", () => {
    for (const prefix of ["", "a"]) {
      const text = prefix + "😀".repeat(5000);
      for (let max = 64; max < 80; max++) {
        const out = cut(text, max);
        expect(out.length).toBeLessThanOrEqual(max);
        expect(LONE_SURROGATE.test(out)).toBe(false);
        const removed = Number(/\[cut: (\d+) characters\]$/.exec(out)?.[1]);
        expect(out.indexOf("…") + removed).toBe(text.length);
      }
    }
  });

  it("Infinity keeps everything", () => {
    const text = "y".repeat(100_000);
    expect(cut(text, Number.POSITIVE_INFINITY)).toBe(text);
  });

  it("capped cuts content keys to the content cap, the rest to the attribute cap, arrays too", () => {
    const long = "z".repeat(10_000);
    const out = capped(
      {
        "gen_ai.tool.call.id": long,
        "gen_ai.tool.call.result": long,
        "gen_ai.response.finish_reasons": [long, "stop"],
        "toolnexus.turn": 3,
      },
      { attribute: 100, content: 1000 },
    );
    expect(String(out["gen_ai.tool.call.id"])).toHaveLength(100);
    expect(String(out["gen_ai.tool.call.result"])).toHaveLength(1000);
    const reasons = out["gen_ai.response.finish_reasons"] as string[];
    expect(reasons[0]).toHaveLength(100);
    expect(reasons[1]).toBe("stop");
    expect(out["toolnexus.turn"]).toBe(3);
  });
});

describe("content within its cap, still JSON", () => {
  const MiB = 1024 * 1024;

  it("gen_ai.input.messages keeps the newest messages that fit and counts the rest", () => {
    const messages: TracedMessage[] = [{ role: "user", content: "first question" }];
    for (let turn = 1; turn <= 10; turn++) {
      messages.push({
        role: "assistant",
        content: "",
        toolCalls: [{ id: `c${turn}`, name: "big", args: {} }],
      });
      messages.push({ role: "tool", callId: `c${turn}`, content: `${turn}:${"y".repeat(MiB)}` });
    }
    const input = inputMessages(messages, 32 * 1024)!;
    expect(input.text.length).toBeLessThanOrEqual(32 * 1024);
    const parsed = JSON.parse(input.text);
    expect(parsed.length + input.omitted).toBe(messages.length);
    expect(input.omitted).toBeGreaterThan(0);
    // The newest message is there, its text cut and saying so.
    const newest = parsed.at(-1);
    expect(newest.parts[0].id).toBe("c10");
    expect(newest.parts[0].response).toMatch(/^10:y+…\[cut: \d+ characters\]$/);
  });

  it("a transcript that fits is whole", () => {
    const messages: TracedMessage[] = [
      { role: "system", content: "be brief" },
      { role: "user", content: "hi" },
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "t", args: { a: 1 } }] },
      { role: "tool", callId: "c1", content: "ok" },
    ];
    const input = inputMessages(messages, 32 * 1024)!;
    expect(input.omitted).toBe(0);
    expect(JSON.parse(input.text)).toEqual([
      { role: "user", parts: [{ type: "text", content: "hi" }] },
      {
        role: "assistant",
        parts: [{ type: "tool_call", id: "c1", name: "t", arguments: { a: 1 } }],
      },
      { role: "tool", parts: [{ type: "tool_call_response", id: "c1", response: "ok" }] },
    ]);
  });

  it("huge arguments in a message become their JSON text, cut", () => {
    const args = { blob: "z".repeat(MiB) };
    const messages: TracedMessage[] = [
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "t", args }] },
    ];
    const input = inputMessages(messages, 4096)!;
    expect(input.text.length).toBeLessThanOrEqual(4096);
    const [message] = JSON.parse(input.text);
    expect(message.parts[0].arguments).toMatch(/^\{"blob":"z+…\[cut: \d+ characters\]$/);
  });

  it("system instructions, output messages and the final text stay JSON within the cap", () => {
    const max = 2000;
    const system = systemInstructions(
      [
        { role: "system", content: "s".repeat(MiB) },
        { role: "system", content: "t".repeat(MiB) },
      ],
      max,
    )!;
    expect(system.length).toBeLessThanOrEqual(max);
    expect(JSON.parse(system)).toHaveLength(2);

    const output = outputMessages(
      {
        id: "r",
        text: "o".repeat(MiB),
        toolCalls: [{ id: "c".repeat(MiB), name: "t", args: { q: "a".repeat(MiB) } }],
      },
      max,
    )!;
    expect(output.length).toBeLessThanOrEqual(max);
    const [message] = JSON.parse(output);
    expect(message.finish_reason).toBe("tool_call");
    expect(message.parts).toHaveLength(2);

    const final = finalText("f".repeat(MiB), max)!;
    expect(final.length).toBeLessThanOrEqual(max);
    expect(JSON.parse(final)[0].parts[0].content).toMatch(/^f+…\[cut: \d+ characters\]$/);
  });
});
