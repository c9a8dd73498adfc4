import type { Tool, ToolContext, ToolResult } from "@toolnexus/core";
import { ok } from "@toolnexus/core";
import { type Args, ArgumentError, defineBuiltin } from "./define.js";
import type { BuiltinToolOptions } from "./options.js";
import { memoryTodoStore, type TodoItem } from "./todo-store.js";

/** The list as todowrite prints it: `[x] text` / `[ ] text` per line, or `(no todos)`. */
export function renderTodos(todos: readonly TodoItem[]): string {
  if (todos.length === 0) return "(no todos)";
  return todos.map((todo) => `[${todo.completed ? "x" : " "}] ${todo.text}`).join("\n");
}

function checkTodos(value: unknown): TodoItem[] {
  if (value === undefined || value === null) throw new ArgumentError("todos is required");
  if (!Array.isArray(value)) throw new ArgumentError("todos must be an array");
  return value.map((item: unknown, i) => {
    const at = `todos[${i}]`;
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      throw new ArgumentError(`${at} must be an object`);
    }
    const todo = item as Record<string, unknown>;
    if (typeof todo.id !== "string") throw new ArgumentError(`${at}.id must be a string`);
    if (typeof todo.text !== "string") throw new ArgumentError(`${at}.text must be a string`);
    if (typeof todo.completed !== "boolean") {
      throw new ArgumentError(`${at}.completed must be a boolean`);
    }
    return { id: todo.id, text: todo.text, completed: todo.completed };
  });
}

/**
 * `todowrite`: replaces the session's todo list (kept in `options.todos`, keyed by
 * `ctx.sessionId`, else `ctx.runId`, else `"default"`) and returns it rendered.
 */
export function todowriteTool(options: BuiltinToolOptions = {}): Tool {
  const store = options.todos ?? memoryTodoStore();
  return defineBuiltin(
    {
      name: "todowrite",
      description: "Replace the session todo list. Returns the rendered list.",
      inputSchema: {
        type: "object",
        properties: {
          todos: {
            type: "array",
            description: "The full todo list to store",
            items: {
              type: "object",
              properties: {
                id: { type: "string" },
                text: { type: "string" },
                completed: { type: "boolean" },
              },
              required: ["id", "text", "completed"],
            },
          },
        },
        required: ["todos"],
        additionalProperties: false,
      },
      async run(args: Args, ctx: ToolContext): Promise<ToolResult> {
        const todos = checkTodos(args.todos);
        store.set(ctx.sessionId ?? ctx.runId ?? "default", todos);
        return ok(renderTodos(todos), { todos });
      },
    },
    options,
  );
}
