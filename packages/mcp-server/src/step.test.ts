// Every way a call reaches a tool goes through one step (step.ts): a plain call of a 2026 or a
// 2025 client, a 2026 call whose rounds halt in a run store, and a Task. The official client
// takes each path against serveMcpHttp, and each is held to the same size limit and the same
// approval; a broken approval rule, or a prompt, that quotes a secret never sends it anywhere
// (the signed requestState included).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { fromJsonSchema } from "@modelcontextprotocol/server";
import type { Tool } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { sqliteStore } from "@toolnexus/store-sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type McpHttpHandle, serveMcpHttp, TASKS_EXTENSION } from "./index.js";

const SECRET = "sk-live-policy-key-7531";
const anything = fromJsonSchema<Record<string, unknown>>({ type: "object" });

type Action = "accept" | "decline";
type Path = "2026" | "2025" | "2026 with a run store" | "Task";
const PATHS: Path[] = ["2026", "2025", "2026 with a run store", "Task"];

/** How a call ended and what its person was asked. */
interface Called {
  isError: boolean;
  text: string;
  asked: string[];
}

/** What the client of each call received. */
const wires = new WeakMap<Called, string[]>();
/** Everything the clients of `called` received (their requestState decoded). */
const wireOf = (...called: Called[]): string =>
  called.map((one) => (wires.get(one) ?? []).join("\n")).join("\n");

function textOf(result: unknown): string {
  const content = (result as { content?: { text?: string }[] }).content ?? [];
  return content.map((part) => part.text ?? "").join("\n");
}

/** Every message `transport` receives, as text, a signed requestState's payload decoded too. */
function recordWire(transport: StreamableHTTPClientTransport): string[] {
  const wire: string[] = [];
  const inner = transport.onmessage as (message: unknown, extra?: unknown) => void;
  transport.onmessage = ((message: unknown, extra?: unknown) => {
    const text = JSON.stringify(message);
    wire.push(text);
    for (const [, state] of text.matchAll(/"requestState":"([^"]+)"/g)) {
      for (const part of state!.split(".")) wire.push(Buffer.from(part, "base64url").toString());
    }
    inner(message, extra);
  }) as typeof transport.onmessage;
  return wire;
}

describe("every path to a tool's execution", () => {
  let server: McpHttpHandle;
  let durable: McpHttpHandle;
  const ran = { wipe: 0, policy: 0, keyed: 0, echo: 0 };
  const clients: Client[] = [];

  beforeAll(async () => {
    const wipe: Tool = {
      ...nativeTool({
        name: "wipe",
        description: "Wipe a disk (asks for approval first)",
        input: { type: "object", properties: { disk: { type: "string" } }, required: ["disk"] },
        run: (args) => {
          ran.wipe++;
          return `wiped ${String(args.disk)}`;
        },
      }),
      needsApproval: true,
      approvalPrompt: (args) => `Wipe ${String(args.disk)}?`,
    };
    const policy: Tool = {
      ...nativeTool({
        name: "policy",
        description: "Its approval rule asks a policy service, which fails",
        run: () => {
          ran.policy++;
          return "policy ran";
        },
      }),
      needsApproval: async () => {
        throw new Error(`policy service refused https://policy.example/check?api_key=${SECRET}`);
      },
    };
    const keyed: Tool = {
      ...nativeTool({
        name: "keyed",
        description: "Its approval prompt quotes a key",
        run: () => {
          ran.keyed++;
          return "keyed ran";
        },
      }),
      needsApproval: true,
      approvalPrompt: () => `Spend with key ${SECRET}?`,
    };
    const echo = nativeTool({
      name: "echo",
      description: "Echoes the length of a text",
      input: { type: "object", properties: { text: { type: "string" } } },
      run: (args) => {
        ran.echo++;
        return `echo ${String(args.text).length} chars`;
      },
    });
    const tools = [wipe, policy, keyed, echo];
    const limits = { secrets: [SECRET], maxArgumentBytes: 200 };
    server = await serveMcpHttp({
      tools,
      ...limits,
      tasks: { tools: tools.map((tool) => tool.name), pollIntervalMs: 10 },
    });
    durable = await serveMcpHttp({ tools, ...limits, runs: sqliteStore({ path: ":memory:" }) });
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    await server?.close();
    await durable?.close();
  });

  /** Calls `name` the way `path` does, answering each question with `action`. */
  async function call(
    path: Path,
    name: string,
    args: Record<string, unknown>,
    action: Action,
  ): Promise<Called> {
    const asked: string[] = [];
    const options: Record<string, unknown> = {
      capabilities: {
        elicitation: { form: {} },
        ...(path === "Task" ? { extensions: { [TASKS_EXTENSION]: {} } } : {}),
      },
    };
    if (path !== "2025") options.versionNegotiation = { mode: { pin: "2026-07-28" } };
    const client = new Client({ name: "paths", version: "1.0.0" }, options as never);
    clients.push(client);
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(String((request.params as { message?: string }).message));
      return { action } as never;
    });
    const url = path === "2026 with a run store" ? durable.url : server.url;
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    const wire = recordWire(transport);
    const called = (isError: boolean, text: string): Called => {
      const one = { isError, text, asked };
      wires.set(one, wire);
      return one;
    };
    if (path !== "Task") {
      const result = await client.callTool({ name, arguments: args });
      return called(result.isError === true, textOf(result));
    }
    // The SDK client (2.4.0) does not decode a task handle: read it off the wire before it.
    const handles: Record<string, unknown>[] = [];
    const inner = transport.onmessage as (message: unknown, extra?: unknown) => void;
    transport.onmessage = ((message: unknown, extra?: unknown) => {
      const result = (message as { result?: { resultType?: string } }).result;
      if (result?.resultType === "task") handles.push(result);
      inner(message, extra);
    }) as typeof transport.onmessage;
    await client
      .request({ method: "tools/call", params: { name, arguments: args } }, anything)
      .catch(() => {});
    const handle = handles.pop();
    if (handle === undefined) throw new Error(`${name} did not answer with a task`);
    const taskId = String(handle.taskId);
    const get = () => client.request({ method: "tasks/get", params: { taskId } }, anything);
    let task = await get();
    for (;;) {
      while (task.status === "working") task = await get();
      if (task.status !== "input_required") break;
      const requests = task.inputRequests as Record<string, { params: { message: string } }>;
      for (const [key, request] of Object.entries(requests)) {
        asked.push(request.params.message);
        await client.request(
          { method: "tasks/update", params: { taskId, inputResponses: { [key]: { action } } } },
          anything,
        );
      }
      task = await get();
    }
    if (task.status === "failed") {
      return called(true, String((task.error as { message?: string }).message));
    }
    expect(task.status).toBe("completed");
    const result = task.result as { isError?: boolean };
    return called(result.isError === true, textOf(result));
  }

  for (const path of PATHS) {
    describe(`a ${path} call`, () => {
      it("asks for approval before a tool that needs it; a decline stops it", async () => {
        const before = ran.wipe;
        const declined = await call(path, "wipe", { disk: "sdb" }, "decline");
        expect(declined).toEqual({
          isError: true,
          text: "declined: Wipe sdb?",
          asked: ["Wipe sdb?"],
        });
        expect(ran.wipe).toBe(before);
        const approved = await call(path, "wipe", { disk: "sdb" }, "accept");
        expect(approved).toEqual({ isError: false, text: "wiped sdb", asked: ["Wipe sdb?"] });
        expect(ran.wipe).toBe(before + 1);
      });

      it("refuses arguments over maxArgumentBytes without running the tool", async () => {
        const before = ran.echo;
        const big = await call(path, "echo", { text: "y".repeat(300) }, "accept");
        expect(big).toEqual({
          isError: true,
          text: "the arguments of echo are larger than this server accepts",
          asked: [],
        });
        expect(ran.echo).toBe(before);
        expect((await call(path, "echo", { text: "hi" }, "accept")).text).toBe("echo 2 chars");
      });

      it("asks for approval when the approval rule throws, and never sends what it threw", async () => {
        const before = ran.policy;
        const declined = await call(path, "policy", {}, "decline");
        expect(declined.asked).toEqual(["Allow policy to run with {}?"]);
        expect(declined.isError).toBe(true);
        expect(ran.policy).toBe(before);
        const approved = await call(path, "policy", {}, "accept");
        expect(approved.text).toBe("policy ran");
        expect(ran.policy).toBe(before + 1);
        expect(wireOf(declined, approved)).not.toContain(SECRET);
      });

      it("scrubs a secret from the approval prompt, in the question and in its requestState", async () => {
        const approved = await call(path, "keyed", {}, "accept");
        expect(approved).toEqual({
          isError: false,
          text: "keyed ran",
          asked: ["Spend with key ***?"],
        });
        const wire = wireOf(approved);
        expect(wire).toContain("Spend with key ***?");
        expect(wire).not.toContain(SECRET);
      });
    });
  }
});
