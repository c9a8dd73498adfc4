// A model that ignores its signal cannot hold a run past its deadline or its cancel: the loop
// stops waiting for it, and what it answers later (text or calls) never reaches the run.
import { type ModelResponse, toolCall } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createClient } from "./client.js";
import { RunCancelledError } from "./errors.js";

/** A model that never looks at its signal; it answers only when `answer` is called. */
function deafModel() {
  let answer: (response: ModelResponse) => void = () => {};
  let asked: () => void = () => {};
  const wasAsked = new Promise<void>((resolve) => {
    asked = resolve;
  });
  const model = {
    id: "deaf",
    generate: () => {
      asked();
      return new Promise<ModelResponse>((resolve) => {
        answer = resolve;
      });
    },
  };
  return { model, wasAsked, answer: (response: ModelResponse) => answer(response) };
}

let charged = 0;
const charge = nativeTool({
  name: "charge",
  description: "Charges the card",
  input: z.object({}),
  run: () => {
    charged++;
    return "charged";
  },
});
const asksToCharge: ModelResponse = {
  id: "late",
  text: "",
  toolCalls: [toolCall("c1", "charge", "{}")],
  finishReason: "tool_calls",
};

describe("a model that ignores its signal", () => {
  it("does not hold a run past its deadline, and its late calls never run", async () => {
    charged = 0;
    const deaf = deafModel();
    const client = createClient({ model: deaf.model, tools: [charge], timeoutMs: 50 });
    const result = await client.run("pay");
    expect(result).toMatchObject({ status: "incomplete", limit: "timeout" });
    deaf.answer(asksToCharge); // the answer comes after the run ended
    await new Promise((resolve) => setImmediate(resolve));
    expect(charged).toBe(0);
  });

  for (const how of ["run", "stream"] as const) {
    it(`is left when the caller's signal aborts (${how})`, async () => {
      charged = 0;
      const deaf = deafModel();
      const client = createClient({ model: deaf.model, tools: [charge] });
      const controller = new AbortController();
      const reason = new Error("the user pressed stop");
      const running =
        how === "run"
          ? client.run("pay", { signal: controller.signal })
          : (async () => {
              for await (const _ of client.stream("pay", { signal: controller.signal })) {
                // nothing
              }
            })();
      await deaf.wasAsked;
      controller.abort(reason);
      const thrown = await running.then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(thrown).toBeInstanceOf(RunCancelledError);
      deaf.answer(asksToCharge);
      await new Promise((resolve) => setImmediate(resolve));
      expect(charged).toBe(0);
    });
  }

  it("with hooks (the general path) is left at the caller's abort too", async () => {
    const deaf = deafModel();
    const client = createClient({ model: deaf.model, hooks: { beforeModel: () => undefined } });
    const controller = new AbortController();
    const running = client.run("pay", { signal: controller.signal });
    await deaf.wasAsked;
    controller.abort();
    await expect(running).rejects.toBeInstanceOf(RunCancelledError);
  });
});
