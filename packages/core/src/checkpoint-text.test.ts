import { describe, expect, it } from "vitest";
import { CHECKPOINT_VERSION, type Checkpoint, type PendingCall } from "./checkpoint.js";
import {
  decodeCheckpoint,
  encodeCheckpoint,
  expandStoredCheckpoint,
  STORED_CHECKPOINT_FORMAT,
} from "./checkpoint-text.js";
import { CheckpointError } from "./errors.js";
import type { Message, ToolMessage } from "./messages.js";
import { readStoredCheckpoint } from "./store-kit.js";

const ARGS = { a: 2, b: 3 };

function pendingCall(callId: string, slot: number, extra: Partial<PendingCall> = {}): PendingCall {
  return {
    request: { id: `pnd_${callId}`, kind: "approval", prompt: `Allow ${callId}?` },
    callId,
    tool: "add",
    args: { ...ARGS },
    fingerprint: "e690d839c6c5b08e",
    schema: "0771c7b7e25fe04c",
    approval: false,
    slot,
    ...extra,
  };
}

const placeholder = (callId: string, name = "add"): Message => ({
  role: "tool",
  callId,
  name,
  content: `Allow ${callId}?`,
  isError: true,
});

/** The S5 bench's halt: one call of `add` waiting for an approval. */
function halted(): Checkpoint {
  return {
    version: CHECKPOINT_VERSION,
    runId: "run_a5a627f0c1480023911d8cf2b91358a8",
    createdAt: "2026-12-05T09:13:28.909Z",
    messages: [
      { role: "user", content: "What is 2 + 3?" },
      {
        role: "assistant",
        id: "resp_1",
        content: "",
        toolCalls: [{ id: "c1", name: "add", args: { ...ARGS }, rawArgs: JSON.stringify(ARGS) }],
      },
      placeholder("c1"),
    ],
    pending: [pendingCall("c1", 2)],
    turns: 1,
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    leaseToken: 0,
    finishReason: "tool_calls",
  };
}

/** Three calls in one turn: c1 finished, c2 and c3 suspended (slots 3 and 4). */
function fanOut(): Checkpoint {
  const c = halted();
  c.messages = [
    { role: "system", content: "Be brief." },
    { role: "user", content: "Add them all." },
    {
      role: "assistant",
      id: "resp_2",
      content: "Adding.",
      toolCalls: ["c1", "c2", "c3"].map((id) => ({
        id,
        name: "add",
        args: { ...ARGS },
        rawArgs: JSON.stringify(ARGS),
      })),
    },
    placeholder("c2"),
    placeholder("c3"),
    { role: "tool", callId: "c1", name: "add", content: "5", isError: false },
  ];
  c.pending = [pendingCall("c2", 3), pendingCall("c3", 4)];
  return c;
}

/** Each case: a checkpoint that must come back exactly from its stored text. */
const CASES: Record<string, () => Checkpoint> = {
  "the S5 halt": halted,
  "calls fanned out, placeholders before a finished result": fanOut,
  "calls fanned out in the loop's order (slots derivable)": () => {
    const c = fanOut();
    const [system, user, assistant, p2, p3, done] = c.messages;
    c.messages = [system!, user!, assistant!, done!, p2!, p3!];
    c.pending = [pendingCall("c2", 4), pendingCall("c3", 5)];
    return c;
  },
  "a createdAt that is not toISOString's form": () => ({
    ...halted(),
    createdAt: "2026-12-05T09:13:28+01:00",
  }),
  "two pending calls in reverse slot order, one placeholder kept": () => {
    const c = fanOut();
    c.messages[3] = { ...(placeholder("c2") as ToolMessage), content: "own words" };
    c.pending = [pendingCall("c3", 4), pendingCall("c2", 3)];
    return c;
  },
  "rawArgs that differ from canonical JSON": () => {
    const c = halted();
    const call = (c.messages[1] as { toolCalls: { rawArgs: string }[] }).toolCalls[0]!;
    call.rawArgs = '{ "b": 3, "a": 2 }';
    return c;
  },
  "rawArgs missing (a transcript from elsewhere)": () => {
    const c = halted();
    const call = (c.messages[1] as unknown as { toolCalls: Record<string, unknown>[] })
      .toolCalls[0]!;
    delete call.rawArgs;
    return c;
  },
  "an approval raised by needsApproval": () => {
    const c = halted();
    c.pending[0]!.approval = true;
    return c;
  },
  "args rewritten by beforeTool, and a renamed tool": () => {
    const c = halted();
    c.pending[0]!.args = { a: 2, b: 3, rounded: true };
    c.pending[0]!.tool = "sum";
    return c;
  },
  "args equal but in another key order": () => {
    const c = halted();
    c.pending[0]!.args = { b: 3, a: 2 };
    return c;
  },
  "a placeholder that is not the suspension's": () => {
    const c = halted();
    c.messages[2] = { ...(placeholder("c1") as ToolMessage), content: "waiting", isError: false };
    return c;
  },
  "a placeholder with parts": () => {
    const c = halted();
    c.messages[2] = { ...placeholder("c1"), parts: [{ type: "text", text: "see" }] } as Message;
    return c;
  },
  "a sub-agent's escalated question with state, rounds, timers and rules": () => {
    const c = halted();
    c.pending[0] = pendingCall("c1", 2, {
      request: {
        id: "pnd_sub",
        kind: "question",
        prompt: "Which region?",
        data: { agent: "deployer", path: ["ops", "deployer"] },
      },
      state: { child: { runId: "run_child", pending: [{ id: "pnd_inner" }] } },
      round: 2,
      deadline: "2026-12-06T00:00:00.000Z",
      timers: [{ kind: "escalation", at: "2026-12-05T12:00:00.000Z", to: "ops" }],
      waitRules: { remindAfterMs: [60_000], escalate: { afterMs: 120_000, to: "ops" } },
    });
    c.messages[2] = { ...placeholder("c1"), content: "Which region?" };
    return c;
  },
  "no schema fingerprint (written before it existed)": () => {
    const c = halted();
    delete c.pending[0]!.schema;
    return c;
  },
  "usage, a lease token, trace, stop reasons, extra and a conversation": () => ({
    ...halted(),
    sessionId: "s1",
    agent: "ops",
    requester: "ann",
    conversation: true,
    extra: { tenant: "acme" },
    trace: { traceparent: "00-abc-def-01" },
    usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15, cacheReadTokens: 4 },
    leaseToken: 7,
    stopReason: "tool_calls",
    turns: 3,
  }),
  "usage with a zero extra count": () => ({
    ...halted(),
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, reasoningTokens: 0 },
  }),
  "no lease token": () => {
    const c = halted();
    delete c.leaseToken;
    return c;
  },
  "a running step: an assistant turn in flight, nothing pending": () => {
    const c = halted();
    c.messages = c.messages.slice(0, 2);
    c.pending = [];
    return c;
  },
  "a finished transcript with provider data and run call ids": () => {
    const c = halted();
    c.pending = [];
    c.messages = [
      { role: "user", content: "hi" },
      {
        role: "assistant",
        id: "r1",
        content: "",
        toolCalls: [{ id: "c1", name: "add", args: {}, rawArgs: "{}", runCallId: "c1#2" }],
        providerData: { anthropic: { thinking: [{ signature: "sig" }] } },
      },
      { role: "tool", callId: "c1", name: "add", content: "5", isError: false },
      { role: "assistant", id: "r2", content: "five" },
    ];
    return c;
  },
  "a repeated call id across turns: the newest turn's call": () => {
    const c = halted();
    c.messages = [
      { role: "user", content: "twice" },
      {
        role: "assistant",
        id: "r1",
        content: "",
        toolCalls: [{ id: "c1", name: "mul", args: { x: 1 }, rawArgs: '{"x":1}' }],
      },
      { role: "tool", callId: "c1", name: "mul", content: "1", isError: false },
      {
        role: "assistant",
        id: "r2",
        content: "",
        toolCalls: [{ id: "c1", name: "add", args: { ...ARGS }, rawArgs: JSON.stringify(ARGS) }],
      },
      placeholder("c1"),
    ];
    c.pending = [pendingCall("c1", 4)];
    return c;
  },
  "policy decisions": () => ({
    ...halted(),
    decisions: [
      { callId: "c1", tool: "add", policy: "small", decision: "ask", by: "policy:small" },
    ],
  }),
};

describe("encodeCheckpoint / decodeCheckpoint", () => {
  for (const [name, make] of Object.entries(CASES)) {
    it(`gives back ${name} exactly`, () => {
      const original = make();
      const text = encodeCheckpoint(original);
      expect(JSON.parse(text).v).toBe(STORED_CHECKPOINT_FORMAT);
      const back = decodeCheckpoint(text);
      expect(back).toStrictEqual(original);
      // The same checkpoint always gives the same text (stores compare it for a retried halt).
      expect(encodeCheckpoint(back)).toBe(text);
      expect(readStoredCheckpoint(text, original.runId)).toStrictEqual(original);
    });
  }

  it("expands a parsed stored value for a caller without changing the caller's value", () => {
    for (const make of Object.values(CASES)) {
      const original = make();
      const stored = JSON.parse(encodeCheckpoint(original)) as Record<string, unknown>;
      const before = structuredClone(stored);
      expect(expandStoredCheckpoint(stored)).toStrictEqual(original);
      // decodeCheckpoint expands its own parse in place; a caller's value is never touched.
      expect(stored).toStrictEqual(before);
    }
    // Version 2 values and non-checkpoints are handed back as they are, for assertCheckpoint.
    const v2 = JSON.parse(JSON.stringify(halted())) as unknown;
    expect(expandStoredCheckpoint(v2)).toBe(v2);
    expect(expandStoredCheckpoint("nope")).toBe("nope");
  });

  it("stores the S5 halt in at most 1.5 times the hand-written floor's 319 bytes", () => {
    const c = halted();
    const text = encodeCheckpoint(c);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(480);
    expect(Buffer.byteLength(text)).toBeLessThan(Buffer.byteLength(JSON.stringify(c)) * 0.7);
    // What was derivable is not in the text; what was not is.
    expect(text).not.toContain("rawArgs");
    expect(text).not.toContain("usage");
    expect(text).not.toContain('Allow c1?","isError');
    expect(text).not.toContain('"slot"');
    expect(text).not.toContain(c.createdAt);
    expect(text).toContain('"schema":"0771c7b7e25fe04c"');
  });

  it("codes each createdAt on its own, whatever was coded just before", () => {
    // The codec remembers the last time it converted; a different one must never come back.
    const times = [
      "2026-12-05T09:13:28.909Z",
      "2026-12-05T09:13:28+01:00",
      "1970-01-01T00:00:00.000Z",
      "2026-12-05T09:13:28.910Z",
      "2026-12-05T09:13:28.909Z",
    ];
    for (const createdAt of times) {
      const c = { ...halted(), createdAt };
      const text = encodeCheckpoint(c);
      expect(decodeCheckpoint(text)).toEqual(c);
      expect(JSON.parse(text).createdAt).toBe(
        createdAt.endsWith("Z") ? Date.parse(createdAt) : createdAt,
      );
    }
  });

  it("leaves out only the slots a reader can work out", () => {
    const loopOrder = JSON.parse(
      encodeCheckpoint(CASES["calls fanned out in the loop's order (slots derivable)"]!()),
    );
    expect(loopOrder.pending.map((p: { slot?: number }) => p.slot)).toEqual([undefined, undefined]);
    expect(loopOrder.messages).toHaveLength(4);
    const other = JSON.parse(encodeCheckpoint(fanOut()));
    expect(other.pending.map((p: { slot?: number }) => p.slot)).toEqual([3, 4]);
  });

  it("reads version 2 text (what earlier releases stored)", () => {
    for (const make of Object.values(CASES)) {
      const original = make();
      expect(decodeCheckpoint(JSON.stringify(original))).toStrictEqual(original);
    }
  });

  it("gives the pending call its own copy of derived args", () => {
    const back = decodeCheckpoint(encodeCheckpoint(halted()));
    const asked = (back.messages[1] as { toolCalls: { args: object }[] }).toolCalls[0]!;
    expect(back.pending[0]!.args).toStrictEqual(asked.args);
    expect(back.pending[0]!.args).not.toBe(asked.args);
  });

  it("refuses stored text it cannot use with a CheckpointError", () => {
    const refused = (text: string): string => {
      try {
        decodeCheckpoint(text);
      } catch (error) {
        expect(error).toBeInstanceOf(CheckpointError);
        return (error as Error).message;
      }
      throw new Error("decoded");
    };
    const stored = JSON.parse(encodeCheckpoint(halted())) as Record<string, unknown>;
    const edited = (edit: (s: Record<string, unknown>) => void): string => {
      const s = structuredClone(stored);
      edit(s);
      return JSON.stringify(s);
    };
    expect(refused("{not json")).toMatch(/not JSON/);
    expect(refused(edited((s) => (s.v = 4)))).toMatch(/stored in format 4/);
    expect(refused(edited((s) => delete s.messages))).toMatch(/messages are missing/);
    expect(refused(edited((s) => delete s.pending))).toMatch(/pending calls are missing/);
    expect(refused(edited((s) => (s.pending = [7])))).toMatch(/not an object/);
    expect(refused(edited((s) => ((s.pending as Record<string, unknown>[])[0]!.slot = 9)))).toMatch(
      /no slot/,
    );
    expect(
      refused(edited((s) => delete (s.pending as Record<string, unknown>[])[0]!.request)),
    ).toMatch(/no request prompt/);
    // The assistant call is gone: nothing to take the tool and args from.
    expect(refused(edited((s) => (s.messages as unknown[]).splice(1, 1)))).toMatch(/malformed/);
    expect(refused(JSON.stringify({ ...halted(), version: 1 }))).toMatch(/version 1/);
  });

  it("names the run when a store reads a bad row", () => {
    expect(() => readStoredCheckpoint('{"v":3}', "run_x")).toThrow(
      /stored checkpoint of run "run_x" cannot be used: .*messages are missing/,
    );
  });
});
