import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  MAX_WIRE_DEPTH,
  pending,
  type Tool,
  type ToolContext,
  WireFormatError,
} from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import { createClient } from "./client.js";
import { scriptedModel } from "./testing.js";
import type { Client } from "./types.js";

function asker(): Tool {
  return {
    name: "ask",
    description: "asks a human",
    inputSchema: { type: "object" },
    source: "custom",
    execute: async (_args, ctx?: ToolContext) =>
      ctx?.answer === undefined
        ? pending({ kind: "input", prompt: "Which env?" })
        : { output: "ok", isError: false },
  };
}

async function halted(): Promise<{ client: Client; id: string }> {
  const client = createClient({
    model: scriptedModel([{ toolCalls: [{ id: "c1", name: "ask" }] }, { content: "done" }]),
    tools: [asker()],
  });
  const result = await client.run("go");
  if (result.status !== "pending") throw new Error("expected a halt");
  return { client, id: result.pending.id };
}

function deep(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

/** Answer data that is not JSON, with the path and the words each refusal must name. */
function badData(): [string, Record<string, unknown>, string, RegExp][] {
  const cyclic: Record<string, unknown> = { x: 1 };
  cyclic.self = cyclic;
  const getter = {
    get token(): string {
      throw new Error("no access");
    },
  };
  return [
    ["5,000-deep", deep(5000), `data${".a".repeat(MAX_WIRE_DEPTH)}`, /deeper than 64 levels/],
    ["cyclic", cyclic, "data.self", /refers back to itself/],
    ["BigInt", { amount: 10n }, "data.amount", /is a BigInt/],
    ["getter", getter, "data.token", /could not be read \(no access\)/],
    ["Symbol", { tag: Symbol("t") }, "data.tag", /is a Symbol/],
    ["function", { run: () => 1 }, "data.run", /is a function/],
  ];
}

describe("user data into the wire format is refused with a WireFormatError", () => {
  it("client.answer and client.resume: every kind of non-JSON data, with its path; nothing recorded", async () => {
    const { client, id } = await halted();
    for (const [, data, path, says] of badData()) {
      for (const call of [
        () => client.answer({ id, ok: true, data }),
        () => client.resume({ id, ok: true, data }),
      ]) {
        const thrown = await call().catch((e: unknown) => e);
        expect(thrown).toBeInstanceOf(WireFormatError);
        const err = thrown as WireFormatError;
        expect(err.path).toBe(path);
        expect(err.message).toMatch(says);
        expect(err.message).toContain(`"${path}"`);
      }
      // The store's own entry point refuses the same way.
      expect(() => client.runs.answer({ id, ok: true, data })).toThrow(WireFormatError);
    }
    const info = await client.runs.getRequest(id);
    expect(info?.state).toBe("waiting");
    // The run is still answerable with good data.
    const done = await client.resume({ id, ok: true, data: { env: "prod" } });
    expect(done.status).toBe("done");
  });

  it("a web handler gets a 400, not a 500, for a 5,000-deep JSON body", async () => {
    const { client, id } = await halted();
    const server = createServer(async (req, res) => {
      let body = "";
      for await (const chunk of req) body += chunk;
      try {
        const receipt = await client.answer(body === "" ? undefined : JSON.parse(body));
        res.writeHead(200).end(JSON.stringify(receipt));
      } catch (thrown) {
        const status = thrown instanceof WireFormatError ? 400 : 500;
        res.writeHead(status).end((thrown as Error).message);
      }
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      const { port } = server.address() as AddressInfo;
      const text = `{"id":${JSON.stringify(id)},"ok":true,"data":${'{"a":'.repeat(5000)}1${"}".repeat(5000)}}`;
      const response = await fetch(`http://127.0.0.1:${port}/answer`, {
        method: "POST",
        body: text,
      });
      expect(response.status).toBe(400);
      expect(await response.text()).toContain("nested deeper than 64 levels");
      const ok = await fetch(`http://127.0.0.1:${port}/answer`, {
        method: "POST",
        body: JSON.stringify({ id, ok: true, data: { env: "prod" } }),
      });
      expect(ok.status).toBe(200);
    } finally {
      server.close();
    }
  });

  it("model arguments 5,000 levels deep become an error result the model reads; the run goes on", async () => {
    const raw = `${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`;
    const ran: unknown[] = [];
    const tool: Tool = {
      name: "t",
      description: "d",
      inputSchema: { type: "object" },
      source: "custom",
      execute: async (args) => {
        ran.push(args);
        return { output: "ran", isError: false };
      },
    };
    const client = createClient({
      model: scriptedModel([
        { toolCalls: [{ id: "c1", name: "t", arguments: raw }] },
        { content: "ok" },
      ]),
      tools: [tool],
    });
    const result = await client.run("go", { durable: true });
    expect(result.status).toBe("done");
    expect(ran).toHaveLength(0);
    const message = result.messages.find((m) => m.role === "tool");
    expect(message).toMatchObject({
      isError: true,
      content: "invalid arguments for t: arguments nest deeper than 64 levels",
    });
  });

  it("a halt whose state or rewritten arguments are not JSON becomes an error result, not a store crash", async () => {
    const tool: Tool = {
      name: "t",
      description: "d",
      inputSchema: { type: "object" },
      source: "custom",
      execute: async () => pending({ kind: "approval", prompt: "ok?", state: { cursor: 5n } }),
    };
    const client = createClient({
      model: scriptedModel([{ toolCalls: [{ id: "c1", name: "t" }] }, { content: "moved on" }]),
      tools: [tool],
    });
    const result = await client.run("go");
    expect(result.status).toBe("done");
    expect(result.messages.find((m) => m.role === "tool")).toMatchObject({
      isError: true,
      content:
        'cannot halt for a human: "state.cursor" is a BigInt, which JSON cannot hold; send it as a string, and a halted call is stored as JSON',
    });
  });

  it("a durable run refuses a run extra that is not JSON before storing anything", async () => {
    const cyclic: Record<string, unknown> = { tenant: "acme" };
    cyclic.me = cyclic;
    const client = createClient({
      model: scriptedModel([{ toolCalls: [{ id: "c1", name: "ask" }] }, { content: "done" }]),
      tools: [asker()],
    });
    for (const [extra, path] of [
      [cyclic, "extra.me"],
      [{ limit: 5n }, "extra.limit"],
      [{ deep: deep(5000) }, `extra.deep${".a".repeat(MAX_WIRE_DEPTH - 1)}`],
    ] as const) {
      const thrown = await client.run("go", { durable: true, extra }).catch((e: unknown) => e);
      expect(thrown).toBeInstanceOf(WireFormatError);
      expect((thrown as WireFormatError).path).toBe(path);
      expect((thrown as Error).message).toContain("a durable run's extra is stored as JSON");
    }
    expect(await client.runs.list()).toEqual([]);
    // JSON extra is kept, and a resumed run's tools see it.
    const seen: unknown[] = [];
    const tool: Tool = {
      ...asker(),
      execute: async (_args, ctx?: ToolContext) => {
        seen.push(ctx?.extra);
        return asker().execute({}, ctx);
      },
    };
    const store = client.runs;
    const first = createClient({
      model: scriptedModel([{ toolCalls: [{ id: "c1", name: "ask" }] }]),
      tools: [tool],
      runs: store,
    });
    const halted = await first.run("go", { durable: true, extra: { tenant: "acme" } });
    if (halted.status !== "pending") throw new Error("expected a halt");
    const done = await createClient({
      model: scriptedModel([{ content: "done" }]),
      tools: [tool],
      runs: store,
    }).resume({ id: halted.pending.id, ok: true });
    expect(done.status).toBe("done");
    expect(seen).toEqual([{ tenant: "acme" }, { tenant: "acme" }]);
  });
});
