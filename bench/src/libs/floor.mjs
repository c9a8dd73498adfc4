// The floor: a hand-written loop with no library. It does the least work a tool loop can do:
// call the model, parse the arguments, check them, call the tool, append the messages, repeat.
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
  turnClock,
  turnOf,
} from "../common.mjs";

const SUSPEND = Symbol("suspend");

function checkArgs(args) {
  if (typeof args !== "object" || args === null) throw new Error("arguments must be an object");
  if (typeof args.a !== "number" || typeof args.b !== "number") {
    throw new Error("a and b must be numbers");
  }
  return args;
}

const answer = (text) => ({ text, calls: [] });
const calls = (ids) => ({
  text: "",
  calls: ids.map((id) => ({ id, name: "add", args: ARGS_JSON })),
});

/** Runs tool calls and appends their results; returns the calls that suspended. */
async function runTools(tools, messages, requested, approved) {
  const outputs = await Promise.all(
    requested.map(async (call) => {
      const tool = tools[call.name];
      if (tool === undefined) return `unknown tool: ${call.name}`;
      try {
        const value = await tool(checkArgs(JSON.parse(call.args)), approved);
        return value === SUSPEND ? SUSPEND : String(value);
      } catch (thrown) {
        return `error: ${thrown.message}`;
      }
    }),
  );
  const suspended = [];
  for (let i = 0; i < requested.length; i++) {
    if (outputs[i] === SUSPEND) suspended.push(requested[i]);
    else messages.push({ role: "tool", callId: requested[i].id, content: outputs[i] });
  }
  return suspended;
}

/** The loop. Returns the final text, or the state to persist when a tool suspends. */
async function loop(model, tools, messages, maxTurns = 10) {
  for (let turn = 0; turn < maxTurns; turn++) {
    const response = await model(messages);
    messages.push({ role: "assistant", content: response.text, calls: response.calls });
    if (response.calls.length === 0) return { text: response.text };
    const suspended = await runTools(tools, messages, response.calls, false);
    if (suspended.length > 0) return { halted: { messages, suspended } };
  }
  throw new Error("too many turns");
}

export function create() {
  const ran = counter();
  const add = async ({ a, b }) => {
    ran.n++;
    return a + b;
  };
  const tools = { add };
  const start = () => [{ role: "user", content: PROMPT }];
  const last = (messages) => messages[messages.length - 1];

  const m1 = async (messages) => {
    const end = last(messages);
    if (end.role !== "tool") return calls(["c1"]);
    expectFive("floor s1", end.content);
    return answer(FINAL.s1);
  };
  const fanIds = Array.from({ length: FANOUT }, (_, i) => `c${i}`);
  const m2 = async (messages) => {
    const end = last(messages);
    if (end.role !== "tool") return calls(fanIds);
    expectFive("floor s2", end.content);
    return answer(FINAL.s2);
  };
  const clock = turnClock();
  const m3 = async (messages) => {
    const end = last(messages);
    const k = end.role === "tool" ? turnOf(end.callId) + 1 : 0;
    clock.mark(k);
    if (k < LONG_TURNS) return calls([callId(k)]);
    expectFive("floor s3", end.content);
    return answer(FINAL.s3);
  };
  const door = gate();
  const slowTools = {
    add: async ({ a, b }) => {
      await door.wait();
      ran.n++;
      return a + b;
    },
  };
  const m4 = async (messages) => {
    const end = last(messages);
    if (end.role !== "tool") return calls(["c1"]);
    expectFive("floor s4", end.content);
    return answer(FINAL.s4);
  };
  const approvalTools = {
    add: async ({ a, b }, approved) => {
      if (!approved) return SUSPEND;
      ran.n++;
      return a + b;
    },
  };
  const m5 = async (messages) => {
    const end = last(messages);
    if (end.role !== "tool") return calls(["c1"]);
    expectFive("floor s5", end.content);
    return answer(FINAL.s5);
  };

  return {
    name: "hand-written loop",
    version: "-",
    ran,
    async s1() {
      const before = ran.n;
      const { text } = await loop(m1, tools, start());
      expectEqual("floor s1 text", text, FINAL.s1);
      expectEqual("floor s1 tool runs", ran.n - before, 1);
    },
    async s2() {
      const before = ran.n;
      const { text } = await loop(m2, tools, start());
      expectEqual("floor s2 text", text, FINAL.s2);
      expectEqual("floor s2 tool runs", ran.n - before, FANOUT);
    },
    clock,
    async s3() {
      const before = ran.n;
      const { text } = await loop(m3, tools, start(), LONG_TURNS + 1);
      expectEqual("floor s3 text", text, FINAL.s3);
      expectEqual("floor s3 tool runs", ran.n - before, LONG_TURNS);
    },
    door,
    async s4() {
      const { text } = await loop(m4, slowTools, start());
      expectEqual("floor s4 text", text, FINAL.s4);
    },
    async s5() {
      const before = ran.n;
      const { halted } = await loop(m5, approvalTools, start());
      const json = JSON.stringify(halted);
      const state = JSON.parse(json);
      // Approved: run the suspended calls, then continue the loop from the restored transcript.
      await runTools(approvalTools, state.messages, state.suspended, true);
      const { text } = await loop(m5, approvalTools, state.messages);
      expectEqual("floor s5 text", text, FINAL.s5);
      expectEqual("floor s5 tool runs", ran.n - before, 1);
      return Buffer.byteLength(json);
    },
  };
}
