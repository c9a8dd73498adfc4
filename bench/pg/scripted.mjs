// The scripted model and approval tool of the PostgreSQL benches: the model asks for add(2, 3),
// the tool waits for a human's approval (a pending request), then the model answers. `modelMs`
// makes every model turn wait that long, as a remote model would.
import { pending, toolCall } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { z } from "zod";

export const PROMPT = "What is 2 + 3?";
export const FINAL = "2 + 3 = 5";

export function approvalTool() {
  return nativeTool({
    name: "add",
    description: "Add two numbers once a human approves",
    input: z.object({ a: z.number(), b: z.number() }),
    ctx: true,
    run: ({ a, b }, ctx) => {
      if (ctx.answer?.ok !== true) return pending({ kind: "approval", prompt: "Allow add?" });
      return a + b;
    },
  });
}

export function approvalModel(modelMs = 0) {
  let responses = 0;
  return {
    id: "scripted",
    async generate(request) {
      if (modelMs > 0) await new Promise((resolve) => setTimeout(resolve, modelMs));
      const last = request.messages[request.messages.length - 1];
      if (last.role !== "tool") {
        return {
          id: `r${++responses}`,
          text: "",
          toolCalls: [toolCall("c1", "add", '{"a":2,"b":3}')],
          finishReason: "tool_calls",
        };
      }
      return { id: `r${++responses}`, text: FINAL, toolCalls: [], finishReason: "stop" };
    },
  };
}
