// The Vercel AI SDK: generateText with tools, the model replaced by the mock language model of
// ai/test (MockLanguageModelV4 where the SDK has it, as in ai 7; MockLanguageModelV3 in ai 6)
// whose doGenerate plays the script. The SDK's modules come from the bench package that runs
// (see peers.mjs), so the same scenarios run against ai 6 on Node 20 and ai 7 on Node 22.
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

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};
const answer = (text) => ({
  response: { id: responseId() },
  content: [{ type: "text", text }],
  finishReason: { unified: "stop", raw: "stop" },
  usage,
  warnings: [],
});
const calls = (ids) => ({
  response: { id: responseId() },
  content: ids.map((id) => ({
    type: "tool-call",
    toolCallId: id,
    toolName: "add",
    input: ARGS_JSON,
  })),
  finishReason: { unified: "tool-calls", raw: "tool_calls" },
  usage,
  warnings: [],
});

/** The output of the last tool result the model was sent, or undefined after a user turn. */
function lastToolResult(prompt) {
  const last = prompt[prompt.length - 1];
  if (last.role !== "tool") return undefined;
  return last.content[last.content.length - 1];
}

/**
 * `deps`: `ai` and `aiTest` (the modules `ai` and `ai/test`), `z` (zod) and `version` (the
 * installed `ai`'s version), from the bench package's peers.mjs.
 */
export function create({ ai, aiTest, z, version }) {
  const { generateText, stepCountIs, tool } = ai;
  const MockLanguageModel = aiTest.MockLanguageModelV4 ?? aiTest.MockLanguageModelV3;
  const inputSchema = z.object({ a: z.number(), b: z.number() });
  /** The mock, without its call log: recording every request is a test aid, not the SDK's cost. */
  const mock = (doGenerate) => {
    const model = new MockLanguageModel({ doGenerate });
    model.doGenerateCalls = { push() {}, length: 0 };
    return model;
  };
  const ran = counter();
  const add = tool({
    description: "Add two numbers",
    inputSchema,
    execute: async ({ a, b }) => {
      ran.n++;
      return a + b;
    },
  });
  const tools = { add };

  const m1 = mock(async ({ prompt }) => {
    const result = lastToolResult(prompt);
    if (result === undefined) return calls(["c1"]);
    expectFive("ai s1", result.output.value);
    return answer(FINAL.s1);
  });
  const fanIds = Array.from({ length: FANOUT }, (_, i) => `c${i}`);
  const m2 = mock(async ({ prompt }) => {
    const result = lastToolResult(prompt);
    if (result === undefined) return calls(fanIds);
    expectFive("ai s2", result.output.value);
    return answer(FINAL.s2);
  });
  const clock = turnClock();
  const m3 = mock(async ({ prompt }) => {
    const result = lastToolResult(prompt);
    const k = result === undefined ? 0 : turnOf(result.toolCallId) + 1;
    clock.mark(k);
    if (k < LONG_TURNS) return calls([callId(k)]);
    expectFive("ai s3", result.output.value);
    return answer(FINAL.s3);
  });
  const door = gate();
  const slowTools = {
    add: tool({
      description: "Add two numbers, slowly",
      inputSchema,
      execute: async ({ a, b }) => {
        await door.wait();
        ran.n++;
        return a + b;
      },
    }),
  };
  const m4 = mock(async ({ prompt }) => {
    const result = lastToolResult(prompt);
    if (result === undefined) return calls(["c1"]);
    expectFive("ai s4", result.output.value);
    return answer(FINAL.s4);
  });
  const approvalTools = {
    add: tool({
      description: "Add two numbers once a human approves",
      inputSchema,
      needsApproval: true,
      execute: async ({ a, b }) => {
        ran.n++;
        return a + b;
      },
    }),
  };
  const m5 = mock(async ({ prompt }) => {
    const result = lastToolResult(prompt);
    if (result === undefined) return calls(["c1"]);
    expectFive("ai s5", result.output.value);
    return answer(FINAL.s5);
  });

  const oneRun = async (model, what, expected, toolRuns, maxSteps = 10, useTools = tools) => {
    const before = ran.n;
    const result = await generateText({
      model,
      tools: useTools,
      prompt: PROMPT,
      stopWhen: stepCountIs(maxSteps),
    });
    expectEqual(`ai ${what} text`, result.text, expected);
    if (toolRuns !== undefined) expectEqual(`ai ${what} tool runs`, ran.n - before, toolRuns);
  };

  return {
    name: "Vercel AI SDK",
    version: `ai@${version}`,
    ran,
    s1: () => oneRun(m1, "s1", FINAL.s1, 1),
    s2: () => oneRun(m2, "s2", FINAL.s2, FANOUT),
    clock,
    s3: () => oneRun(m3, "s3", FINAL.s3, LONG_TURNS, LONG_TURNS + 1),
    door,
    s4: () => oneRun(m4, "s4", FINAL.s4, undefined, 10, slowTools),
    async s5() {
      const before = ran.n;
      const first = await generateText({
        model: m5,
        tools: approvalTools,
        prompt: PROMPT,
        stopWhen: stepCountIs(10),
      });
      const request = first.content.find((part) => part.type === "tool-approval-request");
      if (request === undefined) throw new Error("ai s5: the run did not stop for an approval");
      // The SDK's state between the halt and the resume is the message list.
      const json = JSON.stringify([{ role: "user", content: PROMPT }, ...first.response.messages]);
      const messages = JSON.parse(json);
      messages.push({
        role: "tool",
        content: [
          { type: "tool-approval-response", approvalId: request.approvalId, approved: true },
        ],
      });
      const done = await generateText({
        model: m5,
        tools: approvalTools,
        messages,
        stopWhen: stepCountIs(10),
      });
      expectEqual("ai s5 text", done.text, FINAL.s5);
      expectEqual("ai s5 tool runs", ran.n - before, 1);
      return Buffer.byteLength(json);
    },
  };
}
