import { createClient } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import { describe, expect, it } from "vitest";
import { callThroughClient } from "./test-support.js";
import { memoryTodoStore } from "./todo-store.js";
import { todowriteTool } from "./todowrite.js";

const todos = [
  { id: "1", text: "write the tests", completed: true },
  { id: "2", text: "ship it", completed: false },
];

describe("todowrite", () => {
  it("returns the rendered list", async () => {
    const run = await callThroughClient([todowriteTool()], "todowrite", { todos });
    expect(run.output).toBe("[x] write the tests\n[ ] ship it");
    expect(run.record.result.metadata).toEqual({ todos });
    expect(run.requests).toEqual([]);
    expect((await todowriteTool().execute({ todos: [] })).output).toBe("(no todos)");
  });

  it("keeps one list per session, replaced on every write", async () => {
    const store = memoryTodoStore();
    const tool = todowriteTool({ todos: store });
    for (const [sessionId, list] of [
      ["s-1", todos],
      ["s-2", [{ id: "a", text: "other", completed: false }]],
      ["s-1", [{ id: "3", text: "replaced", completed: false }]],
    ] as const) {
      const model = scriptedModel([
        { toolCalls: [{ name: "todowrite", arguments: { todos: list } }] },
        { content: "ok" },
      ]);
      await createClient({ model, tools: [tool] }).run("plan", { sessionId });
    }
    expect(store.get("s-1")).toEqual([{ id: "3", text: "replaced", completed: false }]);
    expect(store.get("s-2")).toEqual([{ id: "a", text: "other", completed: false }]);
  });

  it("falls back to the run id, keeps at most maxSessions lists", async () => {
    const store = memoryTodoStore({ maxSessions: 2 });
    const tool = todowriteTool({ todos: store });
    await tool.execute({ todos }, { runId: "r-1" });
    await tool.execute({ todos }, { runId: "r-2" });
    await tool.execute({ todos }, { runId: "r-3" });
    expect(store.get("r-1")).toBeUndefined();
    expect(store.get("r-3")).toEqual(todos);
  });

  it("rejects malformed todos", async () => {
    const tool = todowriteTool();
    expect((await tool.execute({})).output).toBe("todowrite: todos is required");
    expect((await tool.execute({ todos: [{ id: "1", text: "x" }] })).output).toBe(
      "todowrite: todos[0].completed must be a boolean",
    );
  });
});
