// The OpenAI Agents SDK: an Agent with function tools run by a Runner, tracing off, and a fake
// `Model` whose getResponse plays the script. The SDK comes from the bench package that runs (see
// peers.mjs): 0.14 on Node 20, the newest (which needs Node 22) on Node 22.
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
} from "../common.mjs";

/**
 * `deps`: `agents` (the module `@openai/agents`), `z` (zod) and `version` (the installed
 * `@openai/agents`'s version), from the bench package's peers.mjs.
 */
export function create({ agents, z, version }) {
  const { Agent, Runner, RunState, setTracingDisabled, tool, Usage } = agents;
  setTracingDisabled(true);
  const parameters = z.object({ a: z.number(), b: z.number() });
  const answer = (text) => ({
    usage: new Usage(),
    responseId: responseId(),
    output: [
      {
        type: "message",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text }],
      },
    ],
  });
  const calls = (ids) => ({
    usage: new Usage(),
    responseId: responseId(),
    output: ids.map((id) => ({
      type: "function_call",
      callId: id,
      name: "add",
      arguments: ARGS_JSON,
      status: "completed",
    })),
  });

  /** The last function result the model was sent, or undefined after a user turn. */
  function lastToolResult(input) {
    if (typeof input === "string") return undefined;
    const last = input[input.length - 1];
    return last?.type === "function_call_result" ? last : undefined;
  }

  const outputText = (item) => (typeof item.output === "string" ? item.output : item.output.text);

  /** A fake Model: the scripted answer for the request's input. */
  function model(decide) {
    return {
      async getResponse(request) {
        return decide(lastToolResult(request.input));
      },
      // biome-ignore lint/correctness/useYield: the bench never streams.
      async *getStreamedResponse() {
        throw new Error("the bench does not stream");
      },
    };
  }

  const runner = new Runner({ tracingDisabled: true });
  const ran = counter();
  const add = tool({
    name: "add",
    description: "Add two numbers",
    parameters,
    execute: async ({ a, b }) => {
      ran.n++;
      return a + b;
    },
  });

  const agent = (name, decide, tools = [add]) =>
    new Agent({ name, instructions: "Add numbers.", model: model(decide), tools });

  const a1 = agent("s1", (result) => {
    if (result === undefined) return calls(["c1"]);
    expectFive("openai s1", outputText(result));
    return answer(FINAL.s1);
  });
  const fanIds = Array.from({ length: FANOUT }, (_, i) => `c${i}`);
  const a2 = agent("s2", (result) => {
    if (result === undefined) return calls(fanIds);
    expectFive("openai s2", outputText(result));
    return answer(FINAL.s2);
  });
  const clock = turnClock();
  const a3 = agent("s3", (result) => {
    const k = result === undefined ? 0 : turnOf(result.callId) + 1;
    clock.mark(k);
    if (k < LONG_TURNS) return calls([callId(k)]);
    expectFive("openai s3", outputText(result));
    return answer(FINAL.s3);
  });
  const door = gate();
  const slowAdd = tool({
    name: "add",
    description: "Add two numbers, slowly",
    parameters,
    execute: async ({ a, b }) => {
      await door.wait();
      ran.n++;
      return a + b;
    },
  });
  const a4 = agent(
    "s4",
    (result) => {
      if (result === undefined) return calls(["c1"]);
      expectFive("openai s4", outputText(result));
      return answer(FINAL.s4);
    },
    [slowAdd],
  );
  const approvedAdd = tool({
    name: "add",
    description: "Add two numbers once a human approves",
    parameters,
    needsApproval: true,
    execute: async ({ a, b }) => {
      ran.n++;
      return a + b;
    },
  });
  const a5 = agent(
    "s5",
    (result) => {
      if (result === undefined) return calls(["c1"]);
      expectFive("openai s5", outputText(result));
      return answer(FINAL.s5);
    },
    [approvedAdd],
  );

  const oneRun = async (agentOf, what, expected, toolRuns, maxTurns = 10) => {
    const before = ran.n;
    const result = await runner.run(agentOf, PROMPT, { maxTurns });
    expectEqual(`openai ${what} text`, result.finalOutput, expected);
    if (toolRuns !== undefined) expectEqual(`openai ${what} tool runs`, ran.n - before, toolRuns);
  };

  return {
    name: "OpenAI Agents SDK",
    version: `@openai/agents@${version}`,
    ran,
    s1: () => oneRun(a1, "s1", FINAL.s1, 1),
    s2: () => oneRun(a2, "s2", FINAL.s2, FANOUT),
    clock,
    s3: () => oneRun(a3, "s3", FINAL.s3, LONG_TURNS, LONG_TURNS + 1),
    door,
    s4: () => oneRun(a4, "s4", FINAL.s4, undefined),
    async s5() {
      const before = ran.n;
      const halted = await runner.run(a5, PROMPT);
      if (halted.interruptions.length !== 1) {
        throw new Error("openai s5: the run did not stop for an approval");
      }
      const json = halted.state.toString();
      // A fresh RunState from the string alone, approved and run on.
      const state = await RunState.fromString(a5, json);
      for (const item of state.getInterruptions()) state.approve(item);
      const done = await runner.run(a5, state);
      expectEqual("openai s5 text", done.finalOutput, FINAL.s5);
      expectEqual("openai s5 tool runs", ran.n - before, 1);
      return Buffer.byteLength(json);
    },
  };
}
