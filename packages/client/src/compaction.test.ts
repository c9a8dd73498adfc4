// The compaction rule on its own (messages → messages); through the loop in compact-run.test.ts.
import type { AssistantMessage, Message, ToolMessage } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import { compactMessages, estimateTokens, resolveCompaction } from "./compaction.js";

const system: Message = { role: "system", content: "You are the release assistant." };
const user = (content: string): Message => ({ role: "user", content });
let ids = 0;
/** An assistant turn calling `tool` `calls` times, followed by its results. */
function exchange(text: string, calls = 1, tool = "lookup"): Message[] {
  const toolCalls = Array.from({ length: calls }, () => {
    const id = `c${++ids}`;
    return { id, name: tool, args: { q: text }, rawArgs: JSON.stringify({ q: text }) };
  });
  const assistant: AssistantMessage = { role: "assistant", id: `m${ids}`, content: "", toolCalls };
  const results: ToolMessage[] = toolCalls.map((call) => ({
    role: "tool",
    callId: call.id,
    name: tool,
    content: `result of ${text}`,
    isError: false,
  }));
  return [assistant, ...results];
}
const answer = (content: string): Message => ({ role: "assistant", id: `a${++ids}`, content });

/** Every tool message follows the assistant turn with its call, and every call has its result. */
function pairsIntact(messages: readonly Message[]): boolean {
  const open = new Set<string>();
  for (const message of messages) {
    if (message.role === "assistant") {
      if (open.size > 0) return false;
      for (const call of message.toolCalls ?? []) open.add(call.id);
    } else if (message.role === "tool") {
      if (!open.delete(message.callId)) return false;
    } else if (open.size > 0) {
      return false;
    }
  }
  return open.size === 0;
}

describe("compactMessages", () => {
  it("at or below maxTokens changes nothing", async () => {
    const messages = [system, user("hi"), answer("hello")];
    const tokens = estimateTokens(messages);
    expect(await compactMessages(messages, { maxTokens: tokens })).toBeUndefined();
  });

  it("estimates ceil(chars / 4) per message, counting tool calls' names and raw arguments", () => {
    const [call] = exchange("abc");
    const assistant = call as AssistantMessage;
    const chars = assistant.toolCalls![0]!.name.length + assistant.toolCalls![0]!.rawArgs.length;
    expect(estimateTokens([user("12345"), assistant])).toBe(2 + Math.ceil(chars / 4));
    // A tool result's parts: their text and URIs, and 1,000 tokens per image.
    const withParts: ToolMessage = {
      role: "tool",
      callId: "c",
      name: "shot",
      content: "abcd",
      isError: false,
      parts: [
        { type: "text", text: "x".repeat(8) },
        { type: "image", mimeType: "image/png", data: "A".repeat(100_000) },
        { type: "resource", uri: "file:///a", text: "y".repeat(3) },
      ],
    };
    expect(estimateTokens([withParts])).toBe(Math.ceil((4 + 8 + 4_000 + 9 + 3) / 4));
  });

  it("keeps the system prompt verbatim, summarizes the older turns, keeps the largest tail that fits", async () => {
    const older = [user("first question"), ...exchange("a"), answer("first answer")];
    const recent = [user("second question"), ...exchange("b"), answer("second answer")];
    const last = [user("third question")];
    const messages = [system, ...older, ...recent, ...last];
    const seen: Message[][] = [];
    const keepTail = estimateTokens([...recent, ...last]);
    const compacted = await compactMessages(
      messages,
      {
        maxTokens: estimateTokens(messages) - 1,
        keepTail,
        summarize: (given) => {
          seen.push([...given]);
          return "they asked about a";
        },
      },
      {},
    );
    expect(compacted).toBeDefined();
    expect(seen).toEqual([older]);
    expect(compacted!.messages[0]).toBe(system);
    expect(compacted!.messages[1]).toEqual({
      role: "system",
      content: "Summary of the earlier conversation (4 messages):\n\nthey asked about a",
    });
    expect(compacted!.messages.slice(2)).toEqual([...recent, ...last]);
    expect(compacted!.summarized).toBe(older.length);
    expect(compacted!.before).toEqual({
      messages: messages.length,
      tokens: estimateTokens(messages),
    });
    expect(compacted!.after.messages).toBe(2 + recent.length + last.length);
  });

  it("when no tail fits keepTail, keeps the smallest safe one (safety over size)", async () => {
    const messages = [system, user("q1"), ...exchange("a"), user("q2 ".repeat(200))];
    const compacted = await compactMessages(messages, { maxTokens: 10, keepTail: 1 });
    expect(compacted!.messages.slice(2)).toEqual([messages.at(-1)]);
  });

  it("one long tool-calling run: the question stays, a tail starting at an assistant turn follows it", async () => {
    const question = user("migrate every service");
    const turns = Array.from({ length: 30 }, (_, i) => exchange(`service ${i}`, 2));
    const messages = [system, question, ...turns.flat()];
    const compacted = await compactMessages(messages, { maxTokens: 200, keepTail: 100 });
    const kept = compacted!.messages;
    expect(kept[0]).toBe(system);
    expect(kept[2]).toBe(question);
    expect(kept[3]?.role).toBe("assistant");
    expect(pairsIntact(kept.slice(3))).toBe(true);
    expect(estimateTokens(kept.slice(2))).toBeLessThanOrEqual(100);
    expect(kept.at(-1)).toBe(messages.at(-1));
    // Trimmed without a summarizer: numbers and tool names, never the removed text.
    expect(kept[1]!.content).toMatch(
      /^Earlier conversation trimmed: \d+ messages \(about \d+ tokens\) were removed to stay within the context budget\. They called: lookup ×\d+\.$/,
    );
    expect(kept[1]!.content).not.toContain("service 0");
  });

  it("leaves a transcript with nothing safe to summarize as it is", async () => {
    expect(await compactMessages([system, user("x".repeat(400))], { maxTokens: 10 })).toBe(
      undefined,
    );
    expect(await compactMessages([system, ...exchange("no question")], { maxTokens: 1 })).toBe(
      undefined,
    );
  });

  it("caps a summary at 4 characters per token of maxTokens; a flush reminder follows it", async () => {
    const messages = [system, user("q1"), answer("a1".repeat(100)), user("q2")];
    const compacted = await compactMessages(messages, {
      maxTokens: 20,
      keepTail: 5,
      summarize: () => "s".repeat(500),
      flushToMemory: true,
    });
    const summary = compacted!.messages[1]!.content;
    expect(summary).toContain(`${"s".repeat(80)}… [summary cut to 80 characters]`);
    expect(summary).not.toContain("s".repeat(81));
    expect(compacted!.messages[2]).toMatchObject({ role: "system" });
    expect(compacted!.messages[2]!.content).toContain("write down any fact you must keep");
    expect(compacted!.messages.slice(3)).toEqual([user("q2")]);
  });

  it("never separates a call from its result, drops the system prompt or the last question (random transcripts)", async () => {
    let seed = 11;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    let compactions = 0;
    for (let round = 0; round < 300; round++) {
      const messages: Message[] = random(4) === 0 ? [] : [system];
      const length = 1 + random(25);
      for (let i = 0; i < length; i++) {
        const pick = random(3);
        if (pick === 0 || i === 0) messages.push(user(`question ${i} ${"w".repeat(random(80))}`));
        else if (pick === 1) messages.push(...exchange(`step ${i}`, 1 + random(3)));
        else messages.push(answer(`answer ${i} ${"w".repeat(random(80))}`));
      }
      const maxTokens = 1 + random(estimateTokens(messages) + 5);
      const keepTail = 1 + random(maxTokens);
      const compacted = await compactMessages(messages, { maxTokens, keepTail });
      if (compacted === undefined) continue;
      compactions++;
      const kept = compacted.messages;
      const head = messages[0]?.role === "system" ? 1 : 0;
      if (head === 1) expect(kept[0]).toBe(system);
      expect(kept[head]?.role).toBe("system");
      const tail = kept.slice(head + 1);
      expect(tail[0]?.role).toBe("user");
      expect(pairsIntact(tail)).toBe(true);
      const lastQuestion = messages.findLast((m) => m.role === "user");
      expect(tail).toContain(lastQuestion);
      expect(kept.at(-1)).toBe(messages.at(-1));
      expect(compacted.after.messages).toBeLessThanOrEqual(compacted.before.messages);
    }
    expect(compactions).toBeGreaterThan(100);
  });
});

describe("resolveCompaction", () => {
  it("defaults keepTail to half of maxTokens and refuses bad options with a TypeError", () => {
    expect(resolveCompaction({ maxTokens: 1001 })).toMatchObject({
      maxTokens: 1001,
      keepTail: 500,
    });
    expect(resolveCompaction(undefined)).toBeUndefined();
    expect(() => resolveCompaction({ maxTokens: 0 })).toThrow(
      "compaction: maxTokens must be a whole number of tokens, 1 or more",
    );
    expect(() => resolveCompaction({ maxTokens: 10, keepTail: 1.5 })).toThrow("keepTail");
    expect(() =>
      resolveCompaction({ maxTokens: 10, summarize: "x" as unknown as () => string }),
    ).toThrow("compaction: summarize must be a function");
    expect(() => resolveCompaction({ maxTokens: 10, flushToMemory: "" })).toThrow(
      "flushToMemory must be true, false or a reminder text",
    );
  });
});
