// The skill tool through the real loop: the model reads the catalog in the system prompt,
// calls `skill`, and gets the contract's block back as the tool result.
import { fileURLToPath } from "node:url";
import { createClient } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import { describe, expect, it } from "vitest";
import { loadSkills } from "./index.js";

const root = fileURLToPath(new URL("../test-fixtures/conformance", import.meta.url));

describe("through createClient", () => {
  it("the model sees the catalog, loads a skill and reads its instructions", async () => {
    const skills = await loadSkills(root);
    const model = scriptedModel([
      { toolCalls: [{ id: "call_1", name: "skill", arguments: { name: "hello-world" } }] },
      { toolCalls: [{ id: "call_2", name: "skill", arguments: { name: "nope" } }] },
      { content: "Loaded." },
    ]);
    const client = createClient({
      model,
      tools: [skills.tool],
      systemPrompt: `You are helpful.\n\n${skills.prompt}`,
    });
    const result = await client.run("Greet Ada.");
    expect(result.status).toBe("done");
    expect(result.text).toBe("Loaded.");

    const [first] = model.requests;
    expect(first?.messages[0]).toEqual({
      role: "system",
      content: `You are helpful.\n\n${skills.prompt}`,
    });
    expect(first?.tools.map((tool) => tool.name)).toEqual(["skill"]);

    const loaded = await skills.tool.execute({ name: "hello-world" });
    expect(result.toolCalls.map((call) => [call.name, call.status])).toEqual([
      ["skill", "ok"],
      ["skill", "error"],
    ]);
    expect(model.requests[1]?.messages.at(-1)).toEqual({
      role: "tool",
      callId: "call_1",
      name: "skill",
      content: loaded.output,
      isError: false,
    });
    expect(model.requests[2]?.messages.at(-1)).toMatchObject({
      content: 'Skill "nope" not found. Available skills: hello-world',
      isError: true,
    });
  });
});
