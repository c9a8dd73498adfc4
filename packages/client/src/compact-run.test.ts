// Compaction through the loop: a 200-turn run that halts for a human at turn 100 and is
// continued by a fresh client, and a 200-question conversation. The same through a SQLite file
// is in packages/store-sqlite/test/compaction.test.ts.
import { type Message, pending } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createClient } from "./client.js";
import { estimateTokens } from "./compaction.js";
import { memoryConversationStore, memoryRunStore } from "./memory-stores.js";
import { type RecordedRequest, type ScriptTurn, scriptedModel } from "./testing.js";
import type { RunEvent } from "./types.js";

const MAX_TOKENS = 1_500;
const PROMPT = "Write a note for each of the 199 services, then say done.";

const note = nativeTool({
  name: "note",
  description: "Writes a note",
  input: z.object({ n: z.number() }),
  run: ({ n }) => `noted service ${n}: ${"all checks green. ".repeat(8)}`,
});
const approve = nativeTool({
  name: "approve",
  description: "Asks a human to approve the rollout",
  ctx: true,
  run: (_args, ctx) =>
    ctx.answer === undefined ? pending({ kind: "approval", prompt: "Roll out?" }) : "approved",
});

/** Turn k of 200: a call of `note` (of `approve` at turn 100), the answer at 200. */
const turn =
  (k: number): ScriptTurn =>
  () =>
    k === 200
      ? { content: "done" }
      : { toolCalls: [{ id: `c${k}`, name: k === 100 ? "approve" : "note", arguments: { n: k } }] };
const turnsFrom = (first: number, last: number) =>
  Array.from({ length: last - first + 1 }, (_, i) => turn(first + i));

/** Every tool message follows the assistant turn with its call, and every call has its result. */
function pairsIntact(messages: readonly Message[]): boolean {
  const open = new Set<string>();
  for (const message of messages) {
    if (message.role === "assistant") {
      if (open.size > 0) return false;
      for (const call of message.toolCalls ?? []) open.add(call.id);
    } else if (message.role === "tool") {
      if (!open.delete(message.callId)) return false;
    } else if (message.role === "user" && open.size > 0) {
      return false;
    }
  }
  return open.size === 0;
}

function expectWithinBudget(requests: readonly RecordedRequest[]) {
  for (const { messages } of requests) {
    expect(estimateTokens(messages)).toBeLessThanOrEqual(MAX_TOKENS);
    expect(messages[0]).toEqual({ role: "system", content: "You keep notes." });
    expect(messages.some((m) => m.role === "user" && m.content === PROMPT)).toBe(true);
    expect(pairsIntact(messages)).toBe(true);
  }
}

describe("compaction in the loop", () => {
  it("a 200-turn run stays under budget, halts at turn 100, and a fresh client finishes it", async () => {
    const store = memoryRunStore();
    const events: RunEvent[] = [];
    const summarized: number[] = [];
    const options = (turns: ScriptTurn[]) => ({
      model: scriptedModel(turns),
      tools: [note, approve],
      runs: store,
      systemPrompt: "You keep notes.",
      maxTurns: 250,
      compaction: {
        maxTokens: MAX_TOKENS,
        keepTail: 500,
        summarize: (older: readonly Message[]) => {
          summarized.push(older.length);
          return `${older.length} earlier messages: notes were written for the services so far.`;
        },
      },
      onEvent: (event: RunEvent) => {
        if (event.type === "compaction") events.push(event);
      },
    });
    const first = options(turnsFrom(1, 200));
    const halted = await createClient(first).run(PROMPT);
    if (halted.status !== "pending") throw new Error("expected a halt at turn 100");
    expect(halted.turns).toBe(100);
    expect(first.model.calls).toBe(100);

    // The stored checkpoint is the compacted transcript, and its pending call's slot is valid.
    const checkpoint = (await store.getRun(halted.runId))!.checkpoint!;
    // (Within budget before turn 100's model call, plus that turn and its placeholder.)
    expect(estimateTokens(checkpoint.messages)).toBeLessThanOrEqual(MAX_TOKENS + 50);
    expect(events.length).toBeGreaterThanOrEqual(2);
    const slot = checkpoint.pending[0]!.slot;
    expect(checkpoint.messages[slot]).toMatchObject({
      role: "tool",
      callId: "c100",
      content: "Roll out?",
    });
    expect(checkpoint.messages[1]).toMatchObject({ role: "system" });
    expect(checkpoint.messages[1]!.content).toContain("earlier messages");

    // Another client (a process that never saw the first 100 turns) continues it.
    const later = options(turnsFrom(101, 200));
    const runner = createClient(later);
    await runner.answer({ id: halted.pending.id, ok: true });
    const done = await runner.continueRun(halted.runId);
    expect(done.status).toBe("done");
    expect(done.text).toBe("done");
    expect(done.turns).toBe(200);
    expect(later.model.calls).toBe(100);

    expectWithinBudget([...first.model.requests, ...later.model.requests]);
    // The approval's result reached the model before the next turn was summarized away.
    const afterApproval = later.model.requests[0]!.messages;
    expect(afterApproval.at(-1)).toMatchObject({
      role: "tool",
      callId: "c100",
      content: "approved",
    });

    expect(events.length).toBeGreaterThan(5);
    expect(summarized).toHaveLength(events.length);
    for (const event of events) {
      if (event.type !== "compaction") continue;
      expect(event.before.tokens).toBeGreaterThan(MAX_TOKENS);
      expect(event.after.tokens).toBeLessThan(event.before.tokens);
      expect(event.after.messages).toBeLessThan(event.before.messages);
    }
  });

  it("a 200-question conversation: each saved transcript is compacted and under budget", async () => {
    const conversations = memoryConversationStore();
    let asked = 0;
    const model = scriptedModel(
      Array.from({ length: 400 }, () => ({ messages }: { messages: readonly Message[] }) => {
        const last = messages.at(-1)!;
        if (last.role === "user" && asked % 5 === 0) {
          return { toolCalls: [{ id: `n${asked}`, name: "note", arguments: { n: asked } }] };
        }
        return { content: `answer to ${last.role === "user" ? last.content : "the note"}` };
      }),
    );
    const client = createClient({
      model,
      tools: [note],
      conversations,
      systemPrompt: "You keep notes.",
      compaction: { maxTokens: 1_500 },
    });
    for (asked = 0; asked < 200; asked++) {
      const result = await client.ask(`question ${asked}: ${"what changed? ".repeat(10)}`, {
        sessionId: "s1",
      });
      expect(result.status).toBe("done");
    }
    const saved = (await conversations.load("s1"))!;
    expect(saved[0]).toEqual({ role: "system", content: "You keep notes." });
    expect(saved[1]!.content).toMatch(/^Earlier conversation trimmed: \d+ messages/);
    expect(saved.at(-2)).toMatchObject({
      role: "user",
      content: expect.stringMatching(/^question 199:/),
    });
    expect(estimateTokens(saved)).toBeLessThanOrEqual(1_500 + 100);
    for (const { messages } of model.requests) {
      expect(estimateTokens(messages)).toBeLessThanOrEqual(1_500);
      expect(pairsIntact(messages)).toBe(true);
      expect(messages.filter((m) => m.role === "user").at(-1)?.content).toMatch(/^question \d+:/);
    }
  });
});
