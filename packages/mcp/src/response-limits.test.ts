// A remote server's answers are read only up to the limits, through loadMcp with a real HTTP
// server on 127.0.0.1 speaking JSON-RPC: a huge JSON answer, a huge or endless SSE stream, and
// a huge error body at the handshake each fail (or are cut) without being read whole (the
// server sees the connection closed before its answer's end), and the server serves on. A
// call's output is cut at maxOutputChars, after scrubbing; and stdio lines obey maxMessageBytes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Out,
  type RawServer,
  type RpcMessage,
  rawMcp,
  reply,
} from "./fixtures/raw-http-mcp.js";
import { DEFAULT_MAX_MESSAGE_BYTES, loadMcp, type McpToolset } from "./index.js";
import { TREE_SERVER } from "./test-support.js";

const MIB = 1024 * 1024;
const HUGE = 100 * MIB;
const TOKEN = "tok-zq9-very-secret-0123456789XYZ";
// `${NAME}` is the config's placeholder syntax, not a template literal.
const placeholder = (name: string) => ["$", "{", name, "}"].join("");

/** Answers a tools/call by its `kind` argument. */
async function call(message: RpcMessage, out: Out): Promise<void> {
  const args = (message.params?.arguments ?? {}) as { kind?: string; chars?: number };
  const chars = args.chars ?? 0;
  const head = (id: unknown) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`;
  const progressToken = (message.params?._meta as { progressToken?: unknown } | undefined)
    ?.progressToken;
  switch (args.kind) {
    case "huge-json":
      out.res.writeHead(200, { "content-type": "application/json" });
      await out.write(`${head(message.id)}{"content":[{"type":"text","text":"`);
      return out.pump(HUGE, "A");
    case "huge-event":
      out.res.writeHead(200, { "content-type": "text/event-stream" });
      await out.write(
        `event: message\ndata: ${head(message.id)}{"content":[{"type":"text","text":"`,
      );
      return out.pump(HUGE, "A");
    case "endless-progress": {
      out.res.writeHead(200, { "content-type": "text/event-stream" });
      for (let progress = 1; ; progress++) {
        const note = {
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken, progress, message: "p".repeat(1000) },
        };
        if (!(await out.write(`event: message\ndata: ${JSON.stringify(note)}\n\n`))) return;
        if (progress * 1000 > HUGE) return out.end();
      }
    }
    case "long-text":
      // The secret echoed where the cut falls: at `chars` minus 10 characters.
      return reply(out, message, {
        content: [{ type: "text", text: `${"t".repeat(chars - 10)}${TOKEN}${"u".repeat(500)}` }],
      });
    case "long-error":
      return reply(out, message, {
        content: [{ type: "text", text: "e".repeat(chars) }],
        isError: true,
      });
    case "long-structured":
      return reply(out, message, {
        content: [{ type: "text", text: "see structuredContent" }],
        structuredContent: { items: "s".repeat(chars) },
      });
    default:
      return reply(out, message, { content: [{ type: "text", text: "small" }] });
  }
}

/** Every piece of `secret` 4 characters long (a longer fragment contains one). */
function leaked(text: string, secret: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + 4 <= secret.length; i++) {
    if (text.includes(secret.slice(i, i + 4))) out.push(secret.slice(i, i + 4));
  }
  return out;
}

describe("a remote server's answers, with the default limits", () => {
  let server: RawServer;
  let mcp: McpToolset;
  beforeAll(async () => {
    server = await rawMcp({ "tools/call": call });
    mcp = await loadMcp(
      { mcpServers: { remote: { url: server.url, protocol: "2025" } } },
      { maxStreamBytes: 16 * MIB },
    );
  });
  afterAll(async () => {
    await mcp.close();
    await server.close();
  });
  const dump = () => mcp.tools().find((tool) => tool.name === "remote_dump")!;
  const lastWritten = () => server.written.filter((w) => w.method === "tools/call").at(-1)!;

  it("a 100 MiB JSON answer fails the call with the limit named, unread past 10 MiB", async () => {
    const result = await dump().execute({ kind: "huge-json" }, {});
    expect(result.isError).toBe(true);
    expect(result.output).toContain(`over the ${DEFAULT_MAX_MESSAGE_BYTES}-byte limit`);
    expect(result.output).toContain("maxMessageBytes");
    expect(result.output.length).toBeLessThan(500);
    expect(lastWritten().finished).toBe(false);
    expect(lastWritten().bytes).toBeLessThan(HUGE);
    // The server serves on.
    expect((await dump().execute({}, {})).output).toBe("small");
  });

  it("an SSE event past maxMessageBytes fails the call at once, not at its timeout", async () => {
    const result = await dump().execute({ kind: "huge-event" }, {});
    expect(result.isError).toBe(true);
    expect(result.output).toContain("SSE event");
    expect(result.output).toContain("maxMessageBytes");
    expect(result.metadata?.timedOut).toBeUndefined();
    expect(lastWritten().finished).toBe(false);
    expect((await dump().execute({}, {})).output).toBe("small");
  });

  it("an endless SSE stream of progress fails the call past maxStreamBytes", async () => {
    let updates = 0;
    const result = await dump().execute(
      { kind: "endless-progress" },
      { progress: () => void updates++ },
    );
    expect(result.isError).toBe(true);
    expect(result.output).toContain("maxStreamBytes");
    expect(result.metadata?.timedOut).toBeUndefined();
    expect(updates).toBeGreaterThan(0);
    expect(lastWritten().bytes).toBeLessThan(HUGE);
    expect(mcp.status()).toEqual({ remote: "connected" });
  });
});

describe("a huge error body at the handshake", () => {
  it.each(["2025", "auto"] as const)(
    "protocol %s: the server fails with a short reason, its body unread past 64 KiB",
    async (protocol) => {
      const server = await rawMcp({
        initialize: async (_message, out) => {
          out.res.writeHead(500, { "content-type": "text/plain" });
          await out.pump(64 * MIB, "x");
        },
        "server/discover": async (_message, out) => {
          out.res.writeHead(500, { "content-type": "text/plain" });
          await out.pump(64 * MIB, "x");
        },
      });
      const mcp = await loadMcp({ mcpServers: { remote: { url: server.url, protocol } } });
      try {
        const [info] = mcp.servers();
        expect(info?.status).toBe("failed");
        expect(info?.reason?.length).toBeLessThanOrEqual(2100);
        for (const written of server.written) {
          expect(written.finished).toBe(false);
          expect(written.bytes).toBeLessThan(64 * MIB);
        }
      } finally {
        await mcp.close();
        await server.close();
      }
    },
  );
});

describe("maxOutputChars", () => {
  let server: RawServer;
  let mcp: McpToolset;
  beforeAll(async () => {
    server = await rawMcp({ "tools/call": call });
    mcp = await loadMcp(
      {
        mcpServers: {
          remote: {
            url: server.url,
            protocol: "2025",
            headers: { authorization: placeholder("LIMITS_TOKEN") },
          },
        },
      },
      { maxOutputChars: 1000, env: { LIMITS_TOKEN: TOKEN } },
    );
  });
  afterAll(async () => {
    await mcp.close();
    await server.close();
  });
  const dump = () => mcp.tools().find((tool) => tool.name === "remote_dump")!;
  const note = (chars: number) =>
    `\n[cut: the result was ${chars} characters, the limit is 1000 (maxOutputChars)]`;

  it("text is cut with a note, scrubbed first (no piece of a secret at the cut)", async () => {
    const result = await dump().execute({ kind: "long-text", chars: 1000 }, {});
    expect(result.isError).toBe(false);
    expect(result.metadata?.truncated).toBe(true);
    // The secret became "***" before the cut: the text was 990 + 3 + 500 characters.
    expect(result.output).toBe(`${"t".repeat(990)}***${"u".repeat(7)}${note(1493)}`);
    expect(leaked(result.output, TOKEN)).toEqual([]);
  });

  it("an error result's text is cut too", async () => {
    const result = await dump().execute({ kind: "long-error", chars: 5000 }, {});
    expect(result.isError).toBe(true);
    expect(result.output).toBe(`${"e".repeat(1000)}${note(5000)}`);
    expect(result.metadata?.truncated).toBe(true);
  });

  it("structuredContent past the limit is cut as JSON and not kept in metadata", async () => {
    const result = await dump().execute({ kind: "long-structured", chars: 5000 }, {});
    const json = JSON.stringify({ items: "s".repeat(5000) });
    expect(result.output).toBe(`${json.slice(0, 1000)}${note(json.length)}`);
    expect(result.metadata?.truncated).toBe(true);
    expect(result.metadata).not.toHaveProperty("structuredContent");
  });

  it("an output within the limit is whole and not marked", async () => {
    const result = await dump().execute({ kind: "long-structured", chars: 100 }, {});
    expect(result.output).toBe(JSON.stringify({ items: "s".repeat(100) }));
    expect(result.metadata?.structuredContent).toEqual({ items: "s".repeat(100) });
    expect(result.metadata).not.toHaveProperty("truncated");
  });
});

describe("the limits as options", () => {
  it.each([
    ["maxMessageBytes", 0],
    ["maxStreamBytes", -1],
    ["maxOutputChars", 1.5],
  ])("loadMcp rejects %s: %s with a TypeError naming it", async (name, value) => {
    await expect(loadMcp({ mcpServers: {} }, { [name]: value })).rejects.toThrow(
      new TypeError(`loadMcp: ${name} must be a whole number >= 1, got ${value}`),
    );
  });

  it("a stdio server's line longer than maxMessageBytes fails the call", async () => {
    const mcp = await loadMcp(
      { mcpServers: { t: { command: process.execPath, args: [TREE_SERVER] } } },
      { maxMessageBytes: 16 * 1024 },
    );
    try {
      const echo = mcp.tools().find((tool) => tool.name === "t_echo")!;
      expect((await echo.execute({ text: "a".repeat(1024) })).output).toBe(
        `echo ${"a".repeat(1024)}`,
      );
      const result = await echo.execute({ text: "b".repeat(32 * 1024) });
      expect(result.isError).toBe(true);
      expect(result.output).toContain("Connection closed");
      expect(result.output).not.toContain("bbbb");
    } finally {
      await mcp.close();
    }
  });
});
