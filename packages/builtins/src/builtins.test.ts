import { createClient } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import type { Tool } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import {
  BUILTIN_NAMES,
  builtinEnabled,
  builtinsEnabled,
  builtinTools,
  DEFAULT_MAX_OUTPUT_BYTES,
} from "./index.js";

const names = (tools: Tool[]) => tools.map((tool) => tool.name);

// §4A: every tool's properties (name: type) and required keys.
const CONTRACT: Record<string, { properties: Record<string, string>; required: string[] }> = {
  bash: {
    properties: { command: "string", workdir: "string", timeout: "number", description: "string" },
    required: ["command"],
  },
  read: {
    properties: { path: "string", offset: "number", limit: "number" },
    required: ["path"],
  },
  write: { properties: { path: "string", content: "string" }, required: ["path", "content"] },
  edit: {
    properties: {
      path: "string",
      oldString: "string",
      newString: "string",
      replaceAll: "boolean",
    },
    required: ["path", "oldString", "newString"],
  },
  grep: {
    properties: { pattern: "string", path: "string", include: "string", limit: "number" },
    required: ["pattern"],
  },
  glob: {
    properties: { pattern: "string", path: "string", limit: "number" },
    required: ["pattern"],
  },
  webfetch: {
    properties: { url: "string", format: "string", timeout: "number" },
    required: ["url"],
  },
  question: { properties: { questions: "array" }, required: ["questions"] },
  apply_patch: { properties: { patchText: "string" }, required: ["patchText"] },
  todowrite: { properties: { todos: "array" }, required: ["todos"] },
};

describe("the built-in set", () => {
  it("has the contract's ten names in order, source builtin, and its input schemas", () => {
    const tools = builtinTools();
    expect(names(tools)).toEqual([
      "bash",
      "read",
      "write",
      "edit",
      "grep",
      "glob",
      "webfetch",
      "question",
      "apply_patch",
      "todowrite",
    ]);
    expect(BUILTIN_NAMES).toEqual(names(tools));
    for (const tool of tools) {
      expect(tool.source).toBe("builtin");
      const contract = CONTRACT[tool.name];
      const schema = tool.inputSchema;
      expect(schema.type).toBe("object");
      expect(schema.additionalProperties).toBe(false);
      expect(schema.required).toEqual(contract?.required);
      const types = Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([key, value]) => [key, value.type]),
      );
      expect(types).toEqual(contract?.properties);
    }
    const webfetch = tools.find((tool) => tool.name === "webfetch");
    expect(webfetch?.inputSchema.properties?.format?.enum).toEqual(["text", "markdown", "html"]);
    const question = tools.find((tool) => tool.name === "question");
    expect(question?.inputSchema.properties?.questions?.items).toEqual({
      type: "object",
      properties: {
        question: { type: "string" },
        header: { type: "string" },
        options: { type: "array", items: { type: "string" } },
        multiple: { type: "boolean" },
      },
      required: ["question"],
    });
    const todowrite = tools.find((tool) => tool.name === "todowrite");
    expect(todowrite?.inputSchema.properties?.todos?.items).toMatchObject({
      required: ["id", "text", "completed"],
    });
  });

  it("reaches the model as tool specs through the client", async () => {
    const model = scriptedModel([{ content: "hi" }]);
    await createClient({ model, tools: builtinTools() }).run("hello");
    expect(model.requests[0]?.tools.map((tool) => tool.name)).toEqual([...BUILTIN_NAMES]);
  });

  it("whole-source switch: false, disabled:true (wins), enabled:false", () => {
    expect(builtinTools(false)).toEqual([]);
    expect(builtinTools({ disabled: true, enabled: true })).toEqual([]);
    expect(builtinTools({ enabled: false })).toEqual([]);
    expect(names(builtinTools(true))).toEqual([...BUILTIN_NAMES]);
    expect(names(builtinTools({ enabled: true }))).toEqual([...BUILTIN_NAMES]);
    expect(names(builtinTools(null))).toEqual([...BUILTIN_NAMES]);
    expect(builtinsEnabled(undefined)).toBe(true);
    expect(builtinsEnabled({ disabled: false })).toBe(true);
  });

  it("per-tool map on the all-on baseline; unknown names ignored; global off wins", () => {
    const some = builtinTools({ tools: { bash: false, write: false, read: true, nope: false } });
    expect(names(some)).toEqual([
      "read",
      "edit",
      "grep",
      "glob",
      "webfetch",
      "question",
      "apply_patch",
      "todowrite",
    ]);
    expect(builtinTools({ disabled: true, tools: { bash: true } })).toEqual([]);
    expect(builtinEnabled("bash", { tools: { bash: false } })).toBe(false);
    expect(builtinEnabled("read", { tools: { bash: false } })).toBe(true);
    expect(builtinEnabled("skill")).toBe(false);
  });

  it("bash, write, edit and apply_patch need approval by default; configurable", () => {
    const gated = (tools: Tool[]) =>
      tools.filter((tool) => tool.needsApproval !== undefined).map((tool) => tool.name);
    expect(gated(builtinTools())).toEqual(["bash", "write", "edit", "apply_patch"]);
    expect(gated(builtinTools({ needsApproval: true }))).toEqual([
      "bash",
      "write",
      "edit",
      "apply_patch",
    ]);
    expect(gated(builtinTools({ needsApproval: false }))).toEqual([]);
    const rule = () => true;
    const custom = builtinTools({ needsApproval: { bash: rule, write: false, webfetch: true } });
    expect(gated(custom)).toEqual(["bash", "edit", "webfetch", "apply_patch"]);
    expect(custom.find((tool) => tool.name === "bash")?.needsApproval).toBe(rule);
  });

  it("without waitFor, a gated tool halts the run for approval before it runs", async () => {
    const model = scriptedModel([
      { toolCalls: [{ id: "b", name: "bash", arguments: { command: "touch should-not-exist" } }] },
    ]);
    const client = createClient({ model, tools: builtinTools({ root: "/nonexistent-root" }) });
    const halted = await client.run("go");
    expect(halted.status).toBe("pending");
    if (halted.status === "pending") expect(halted.pending.kind).toBe("approval");
  });

  it("every built-in honours an aborted ctx.signal", async () => {
    const args: Record<string, Record<string, unknown>> = {
      bash: { command: "true" },
      read: { path: "x" },
      write: { path: "x", content: "" },
      edit: { path: "x", oldString: "a", newString: "b" },
      grep: { pattern: "a" },
      glob: { pattern: "*" },
      webfetch: { url: "http://127.0.0.1:9/" },
      question: { questions: [{ question: "q" }] },
      apply_patch: { patchText: "*** Begin Patch\n*** Add File: x\n+y\n*** End Patch" },
      todowrite: { todos: [] },
    };
    const signal = AbortSignal.abort();
    for (const tool of builtinTools()) {
      const result = await tool.execute(args[tool.name] ?? {}, { signal });
      expect(result).toEqual({ output: `${tool.name}: cancelled`, isError: true });
    }
  });

  it("rejects invalid options early", () => {
    expect(() => builtinTools({ maxOutputBytes: 0 })).toThrow(
      "@toolnexus/builtins: maxOutputBytes must be a positive number, got 0",
    );
    expect(DEFAULT_MAX_OUTPUT_BYTES).toBe(51_200);
  });

  it("a tool never throws across the boundary", async () => {
    const [read] = builtinTools({ root: "/definitely/not/here", tools: {} }).filter(
      (tool) => tool.name === "read",
    );
    const result = await read?.execute({ path: "x" });
    expect(result).toEqual({
      output: "read: the root folder /definitely/not/here does not exist",
      isError: true,
    });
    // @ts-expect-error: arguments that are not an object
    expect((await read?.execute(null))?.output).toBe("read: arguments must be a JSON object");
  });
});
