// The workload every engine runs, so that only the durable backend differs: an in-memory model
// (no network) and two tools. "steps <n>" makes the model call `step` n times, one call per turn,
// then answer: 2n + 1 durable steps (n + 1 model turns, n tool calls). "ask" makes it call
// `approve`, which asks a human and, once answered, returns the answer's token: one halt, one
// answer, one continuation to the end.
import { pending, toolCall } from "@toolnexus/core";

export const STEPS = 10;
export const STEP_PROMPT = `steps ${STEPS}`;
export const STEPS_PER_RUN = 2 * STEPS + 1;
export const MAX_TURNS = STEPS + 2;
export const ASK_PROMPT = "ask";
export const finalOf = (prompt, lastTool) => `done: ${prompt} -> ${lastTool}`;

/** The model: decides from the transcript alone, so a replay or a re-run asks the same. */
export function benchModel() {
  let responses = 0;
  return {
    id: "bench-engines",
    async generate(request) {
      const prompt = request.messages.find((m) => m.role === "user")?.content ?? "";
      const results = request.messages.filter((m) => m.role === "tool");
      const wanted = prompt === ASK_PROMPT ? 1 : Number(prompt.split(" ")[1]);
      if (results.length < wanted) {
        const name = prompt === ASK_PROMPT ? "approve" : "step";
        return {
          id: `r${++responses}`,
          text: "",
          toolCalls: [toolCall(`c${results.length + 1}`, name, "{}")],
          finishReason: "tool_calls",
        };
      }
      const last = results[results.length - 1]?.content ?? "";
      return {
        id: `r${++responses}`,
        text: finalOf(prompt, last),
        toolCalls: [],
        finishReason: "stop",
      };
    },
  };
}

const tool = (name, execute) => ({
  name,
  description: name,
  inputSchema: { type: "object", properties: {} },
  source: "custom",
  execute,
});

export function benchTools() {
  return [
    tool("step", async (_args, ctx) => ({ output: `step ${ctx?.callId}`, isError: false })),
    tool("approve", async (_args, ctx) => {
      if (ctx?.answer === undefined) return pending({ kind: "approval", prompt: "Allow?" });
      return { output: `approved ${ctx.answer.data?.token}`, isError: false };
    }),
  ];
}
