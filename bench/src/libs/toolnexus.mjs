// toolnexus: createClient + a Model that plays the script, the same way a provider adapter
// reports tool calls (arguments as JSON text, parsed by core's toolCall()).
import { createClient, memoryRunStore } from "@toolnexus/client";
import { decodeCheckpoint, encodeCheckpoint, pending, toolCall } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { z } from "zod";
import {
  ARGS_JSON,
  callId,
  counter,
  expectEqual,
  expectFive,
  FANOUT,
  FINAL,
  gate,
  LONG_TURNS,
  PROMPT,
  responseId,
  turnClock,
  turnOf,
  version,
} from "../common.mjs";

const input = z.object({ a: z.number(), b: z.number() });

/** A Model whose answer depends only on the last message of the transcript. */
function model(id, decide) {
  return {
    id,
    async generate(request) {
      return decide(request.messages[request.messages.length - 1], request.messages);
    },
  };
}

const answer = (text) => ({ id: responseId(), text, toolCalls: [], finishReason: "stop" });
const calls = (ids) => ({
  id: responseId(),
  text: "",
  toolCalls: ids.map((id) => toolCall(id, "add", ARGS_JSON)),
  finishReason: "tool_calls",
});

export function create() {
  const ran = counter();
  const add = nativeTool({
    name: "add",
    description: "Add two numbers",
    input,
    run: ({ a, b }) => {
      ran.n++;
      return a + b;
    },
  });

  // S1: one round trip.
  const c1 = createClient({
    model: model("s1", (last) => {
      if (last.role !== "tool") return calls(["c1"]);
      expectFive("toolnexus s1", last.content);
      return answer(FINAL.s1);
    }),
    tools: [add],
  });

  // S2: eight calls in one turn.
  const fanIds = Array.from({ length: FANOUT }, (_, i) => `c${i}`);
  const c2 = createClient({
    model: model("s2", (last) => {
      if (last.role !== "tool") return calls(fanIds);
      expectFive("toolnexus s2", last.content);
      return answer(FINAL.s2);
    }),
    tools: [add],
  });

  // S3: fifty turns of one call each.
  const clock = turnClock();
  const c3 = createClient({
    maxTurns: LONG_TURNS + 1,
    model: model("s3", (last) => {
      const k = last.role === "tool" ? turnOf(last.callId) + 1 : 0;
      clock.mark(k);
      if (k < LONG_TURNS) return calls([callId(k)]);
      expectFive("toolnexus s3", last.content);
      return answer(FINAL.s3);
    }),
    tools: [add],
  });

  // S4: the tool waits on a gate.
  const door = gate();
  const slowAdd = nativeTool({
    name: "add",
    description: "Add two numbers, slowly",
    input,
    run: async ({ a, b }) => {
      await door.wait();
      ran.n++;
      return a + b;
    },
  });
  const c4 = createClient({
    model: model("s4", (last) => {
      if (last.role !== "tool") return calls(["c1"]);
      expectFive("toolnexus s4", last.content);
      return answer(FINAL.s4);
    }),
    tools: [slowAdd],
  });

  // S5: the tool suspends for an approval; the run halts and a fresh client resumes it.
  const approvedAdd = nativeTool({
    name: "add",
    description: "Add two numbers once a human approves",
    input,
    ctx: true,
    run: ({ a, b }, ctx) => {
      if (ctx.answer?.ok !== true) return pending({ kind: "approval", prompt: "Allow add?" });
      ran.n++;
      return a + b;
    },
  });
  const m5 = model("s5", (last) => {
    if (last.role !== "tool") return calls(["c1"]);
    expectFive("toolnexus s5", last.content);
    return answer(FINAL.s5);
  });
  // The in-memory run store keeps private copies, like a durable store, and has its semantics
  // (answers recorded, a lease per continuation, the journal, the stored result). The halting
  // client lives as long as the bench; the resume happens in a fresh store and a fresh client
  // that share nothing with it but the checkpoint's JSON text, as another process would.
  const store = memoryRunStore({ keepFinished: 100 });
  const c5 = createClient({ model: m5, tools: [approvedAdd], runs: store });

  return {
    name: "toolnexus",
    version: version("@toolnexus/client"),
    ran,
    async s1() {
      const before = ran.n;
      const result = await c1.run(PROMPT);
      expectEqual("toolnexus s1 text", result.text, FINAL.s1);
      expectEqual("toolnexus s1 tool runs", ran.n - before, 1);
    },
    async s2() {
      const before = ran.n;
      const result = await c2.run(PROMPT);
      expectEqual("toolnexus s2 text", result.text, FINAL.s2);
      expectEqual("toolnexus s2 tool runs", ran.n - before, FANOUT);
    },
    clock,
    async s3() {
      const before = ran.n;
      const result = await c3.run(PROMPT);
      expectEqual("toolnexus s3 text", result.text, FINAL.s3);
      expectEqual("toolnexus s3 tool runs", ran.n - before, LONG_TURNS);
    },
    door,
    async s4() {
      const result = await c4.run(PROMPT);
      expectEqual("toolnexus s4 text", result.text, FINAL.s4);
    },
    async s5() {
      const before = ran.n;
      const halted = await c5.run(PROMPT);
      expectEqual("toolnexus s5 status", halted.status, "pending");
      // The text every toolnexus store keeps for the checkpoint (its compact stored form).
      const text = encodeCheckpoint(store.getRun(halted.runId).checkpoint);
      // The run leaves this store (as LangGraph's thread is deleted after its resume).
      store.cancel(halted.runId);
      // Another process: a fresh store loaded from that text, a fresh client on it.
      const loaded = memoryRunStore();
      loaded.halt(decodeCheckpoint(text));
      const fresh = createClient({ model: m5, tools: [approvedAdd], runs: loaded });
      const done = await fresh.resume({ id: halted.pending.id, ok: true });
      expectEqual("toolnexus s5 text", done.text, FINAL.s5);
      expectEqual("toolnexus s5 tool runs", ran.n - before, 1);
      return Buffer.byteLength(text);
    },
  };
}
