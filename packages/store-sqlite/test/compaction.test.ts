// Compaction through a real SQLite file: a 200-turn run compacts as it goes, halts for a human at
// turn 100 with its compacted transcript stored, and a fresh connection and client finish it.
// The recorded `compaction` events are read back from the file. And a 200-question `ask`
// conversation whose transcript the file keeps.
import { createClient, estimateTokens } from "@toolnexus/client";
import { type ScriptTurn, scriptedModel } from "@toolnexus/client/testing";
import { assertCheckpoint, type Message, pending } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { afterEach, beforeEach, expect, it } from "vitest";
import { sqliteStore } from "../src/store.js";
import { tempDir } from "../src/test-fixtures.js";

const MAX_TOKENS = 1_500;
const PROMPT = "Write a note for each service, then say done.";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

const note = nativeTool({
  name: "note",
  description: "Writes a note",
  input: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
  run: ({ n }) => `noted service ${String(n)}: ${"all checks green. ".repeat(8)}`,
});
const approve = nativeTool({
  name: "approve",
  description: "Asks a human to approve the rollout",
  ctx: true,
  run: (_args, ctx) =>
    ctx.answer === undefined ? pending({ kind: "approval", prompt: "Roll out?" }) : "approved",
});

const turnsFrom = (first: number): ScriptTurn[] =>
  Array.from({ length: 200 - first + 1 }, (_, i) => {
    const k = first + i;
    return k === 200
      ? { content: "done" }
      : { toolCalls: [{ id: `c${k}`, name: k === 100 ? "approve" : "note", arguments: { n: k } }] };
  });

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

it("a 200-turn run compacts, halts at turn 100 in the file, and a fresh client finishes it", async () => {
  const path = tmp.file("runs.db");
  const host = (turns: ScriptTurn[]) => {
    const store = sqliteStore({ path });
    const model = scriptedModel(turns);
    const client = createClient({
      model,
      tools: [note, approve],
      runs: store,
      systemPrompt: "You keep notes.",
      maxTurns: 250,
      compaction: { maxTokens: MAX_TOKENS, keepTail: 500 },
    });
    return { store, model, client };
  };

  const first = host(turnsFrom(1));
  const halted = await first.client.run(PROMPT, { durable: true });
  first.store.close();
  if (halted.status !== "pending") throw new Error("expected a halt at turn 100");
  expect(halted.turns).toBe(100);

  const later = host(turnsFrom(101));
  try {
    const stored = later.store.getRun(halted.runId)!;
    assertCheckpoint(stored.checkpoint);
    const { messages, pending: waiting } = stored.checkpoint!;
    expect(estimateTokens(messages)).toBeLessThanOrEqual(MAX_TOKENS + 50);
    expect(messages[waiting[0]!.slot]).toMatchObject({ role: "tool", callId: "c100" });
    expect(messages[1]!.content).toMatch(/^Earlier conversation trimmed: \d+ messages/);

    later.store.answer({ id: halted.pending.id, ok: true });
    const done = await later.client.continueRun(halted.runId);
    expect(done.status).toBe("done");
    expect(done.turns).toBe(200);
    for (const { messages: seen } of [...first.model.requests, ...later.model.requests]) {
      expect(estimateTokens(seen)).toBeLessThanOrEqual(MAX_TOKENS);
      expect(seen[0]).toEqual({ role: "system", content: "You keep notes." });
      expect(seen.some((m) => m.role === "user" && m.content === PROMPT)).toBe(true);
      expect(pairsIntact(seen)).toBe(true);
    }

    const compactions = later.store
      .readEvents(halted.runId, 0)
      .filter((event) => event.type === "compaction");
    expect(compactions.length).toBeGreaterThan(5);
    for (const { data } of compactions) {
      expect(data.beforeTokens as number).toBeGreaterThan(MAX_TOKENS);
      expect(data.afterTokens as number).toBeLessThan(data.beforeTokens as number);
      expect(data.afterMessages as number).toBeLessThan(data.beforeMessages as number);
    }
  } finally {
    later.store.close();
  }
});

it("a 200-question conversation in the file: every saved transcript is compacted and under budget", async () => {
  const path = tmp.file("conversations.db");
  const store = sqliteStore({ path });
  try {
    let asked = 0;
    const turn: ScriptTurn = ({ messages }) => {
      const last = messages.at(-1)!;
      if (last.role === "user" && asked % 5 === 0) {
        return { toolCalls: [{ id: `n${asked}`, name: "note", arguments: { n: asked } }] };
      }
      return { content: `answer to ${last.role === "user" ? last.content : "the note"}` };
    };
    const model = scriptedModel(Array.from({ length: 240 }, () => turn));
    const client = createClient({
      model,
      tools: [note],
      runs: store,
      conversations: store,
      systemPrompt: "You keep notes.",
      compaction: { maxTokens: MAX_TOKENS },
    });
    for (asked = 0; asked < 200; asked++) {
      const result = await client.ask(`question ${asked}: ${"what changed? ".repeat(10)}`, {
        sessionId: "s1",
      });
      expect(result.status).toBe("done");
    }
    const saved = store.load("s1")!;
    expect(saved[0]).toEqual({ role: "system", content: "You keep notes." });
    expect(saved[1]!.content).toMatch(/^Earlier conversation trimmed: \d+ messages/);
    expect(saved.at(-2)).toMatchObject({
      role: "user",
      content: expect.stringMatching(/^question 199:/),
    });
    for (const { messages } of model.requests) {
      expect(estimateTokens(messages)).toBeLessThanOrEqual(MAX_TOKENS);
      expect(pairsIntact(messages)).toBe(true);
    }
  } finally {
    store.close();
  }
});
