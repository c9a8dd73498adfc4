// Long calls as 2026 Tasks: @toolnexus/mcp's client follows a task to its result; the official
// client polls one, answers its question with tasks/update, and cancels another.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { fromJsonSchema } from "@modelcontextprotocol/server";
import { pending } from "@toolnexus/core";
import { loadMcp } from "@toolnexus/mcp";
import { nativeTool } from "@toolnexus/native";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type McpHttpHandle, serveMcpHttp, TASKS_EXTENSION } from "./index.js";

const anything = fromJsonSchema<Record<string, unknown>>({ type: "object" });

describe("tools served as Tasks", () => {
  let server: McpHttpHandle;
  let release: () => void = () => {};
  let runs = 0;
  let aborted = 0;
  beforeAll(async () => {
    const slow = nativeTool({
      name: "slow",
      description: "Works until the test releases it",
      ctx: true,
      run: (_args, ctx) =>
        new Promise<string>((resolve, reject) => {
          runs++;
          release = () => resolve("slow work done");
          ctx.signal?.addEventListener("abort", () => {
            aborted++;
            reject(new Error("aborted"));
          });
        }),
    });
    const ask = nativeTool({
      name: "ask",
      description: "Asks for a name",
      ctx: true,
      run: (_args, ctx) =>
        ctx.answer === undefined
          ? pending({
              id: "name",
              kind: "input",
              prompt: "Your name?",
              data: { schema: { type: "object", properties: { name: { type: "string" } } } },
            })
          : `hello ${String(ctx.answer.data?.name)}`,
    });
    server = await serveMcpHttp({
      tools: [slow, ask],
      tasks: { tools: ["slow", "ask"], pollIntervalMs: 10 },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("our own client follows a task to its result; the tool ran once", async () => {
    const mcp = await loadMcp(
      { mcpServers: { t: { url: server.url, protocol: "2026-07-28" } } },
      { taskWaitMs: 60_000 },
    );
    try {
      const before = runs;
      const tool = mcp.tools().find((t) => t.name === "t_slow");
      const call = tool!.execute({});
      while (runs === before) await new Promise((resolve) => setImmediate(resolve));
      release();
      expect((await call).output).toBe("slow work done");
      expect(runs - before).toBe(1);
    } finally {
      await mcp.close();
    }
  });

  it("the official client polls a task, answers its question, and cancels another", async () => {
    const client = new Client({ name: "poller", version: "1.0.0" }, {
      capabilities: { elicitation: { form: {} }, extensions: { [TASKS_EXTENSION]: {} } },
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    } as never);
    const transport = new StreamableHTTPClientTransport(new URL(server.url));
    await client.connect(transport);
    // The SDK client (2.4.0) does not decode a task handle: read it off the wire before it.
    const handles: Record<string, unknown>[] = [];
    const inner = transport.onmessage as (message: unknown, extra?: unknown) => void;
    transport.onmessage = ((message: unknown, extra?: unknown) => {
      const result = (message as { result?: { resultType?: string } }).result;
      if (result?.resultType === "task") handles.push(result);
      inner(message, extra);
    }) as typeof transport.onmessage;
    const start = async (name: string) => {
      await client
        .request({ method: "tools/call", params: { name, arguments: {} } }, anything)
        .catch(() => {});
      const handle = handles.pop();
      if (handle === undefined) throw new Error(`${name} did not answer with a task`);
      return handle;
    };
    try {
      const handle = await start("ask");
      expect(handle).toMatchObject({ status: "working" });
      const taskId = String(handle.taskId);
      const get = () => client.request({ method: "tasks/get", params: { taskId } }, anything);
      let task = await get();
      while (task.status === "working") task = await get();
      expect(task).toMatchObject({
        status: "input_required",
        inputRequests: {
          name: { method: "elicitation/create", params: { message: "Your name?" } },
        },
      });
      await client.request(
        {
          method: "tasks/update",
          params: {
            taskId,
            inputResponses: { name: { action: "accept", content: { name: "Ada" } } },
          },
        },
        anything,
      );
      task = await get();
      while (task.status === "working") task = await get();
      expect(task).toMatchObject({
        status: "completed",
        result: { content: [{ type: "text", text: "hello Ada" }], isError: false },
      });

      const before = aborted;
      const slow = await start("slow");
      await client.request(
        { method: "tasks/cancel", params: { taskId: String(slow.taskId) } },
        anything,
      );
      expect(
        await client.request(
          { method: "tasks/get", params: { taskId: String(slow.taskId) } },
          anything,
        ),
      ).toMatchObject({
        status: "cancelled",
      });
      expect(aborted - before).toBe(1);
      await expect(
        client.request({ method: "tasks/get", params: { taskId: "task_nobody" } }, anything),
      ).rejects.toThrow(/unknown task/);
    } finally {
      await client.close();
    }
  });
});
