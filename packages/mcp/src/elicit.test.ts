// Questions a 2025 server asks (server-everything, over stdio): a URL-required error (-32042)
// halted and replayed across rounds, and the wait for a human bounded by waitTimeoutMs.
import { createClient } from "@toolnexus/client";
import type { Request } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import { loadMcp, type McpWaitInfo } from "./index.js";
import { EVERYTHING, script } from "./test-support.js";

const everything = { ev: { command: process.execPath, args: [EVERYTHING, "stdio"] } };

describe("a URL-required error (-32042), halted and replayed", () => {
  it("asks each of the two links once, remembers both approvals across rounds, and the call completes", async () => {
    const mcp = await loadMcp({ mcpServers: everything });
    try {
      const url = "https://example.com/consent?flow=2";
      const client = createClient({
        model: script([
          {
            toolCalls: [
              {
                id: "u",
                name: "ev_trigger-url-elicitation",
                arguments: { url, message: "Sign in", errorPath: true },
              },
            ],
          },
          (last) => ({ content: `got: ${last}` }),
        ]),
        tools: mcp.tools(),
      });
      const asked: Request[] = [];
      let result = await client.run("sign in");
      // Each question approved as it comes; a run that keeps asking would exceed this bound.
      for (let i = 0; i < 6 && result.status === "pending"; i++) {
        asked.push(result.pending);
        result = await client.resume({ id: result.pending.id, ok: true });
      }
      expect(result.status).toBe("done");
      // The server's prerequisite link (the error), then the tool's own link (a push-style
      // question); when the replay meets the error again, its link was approved: not asked again.
      expect(asked.map((request) => [request.kind, request.url])).toEqual([
        ["authorization", "https://modelcontextprotocol.io"],
        ["authorization", url],
      ]);
      expect(result.text).toContain("User completed the URL elicitation flow");
    } finally {
      await mcp.close();
    }
  }, 60_000);

  it("a declined link ends the call with a refusal the model sees", async () => {
    const mcp = await loadMcp({ mcpServers: everything });
    try {
      const client = createClient({
        model: script([
          {
            toolCalls: [
              {
                id: "u",
                name: "ev_trigger-url-elicitation",
                arguments: { url: "https://example.com/x", errorPath: true },
              },
            ],
          },
          (last) => ({ content: `got: ${last}` }),
        ]),
        tools: mcp.tools(),
      });
      const halted = await client.run("sign in");
      if (halted.status !== "pending") throw new Error(`expected a halt, got ${halted.status}`);
      const done = await client.resume({ id: halted.pending.id, ok: false, reason: "declined" });
      expect(done.status).toBe("done");
      expect(done.toolCalls.at(-1)?.result).toMatchObject({ isError: true });
      expect(done.toolCalls.at(-1)?.result.output).toMatch(/^declined\/expired/);
    } finally {
      await mcp.close();
    }
  }, 60_000);
});

describe("waitFor's signal", () => {
  it("aborts (TimeoutError) when waitTimeoutMs expires, and the server hears cancel", async () => {
    const infos: McpWaitInfo[] = [];
    let abortedWith: unknown;
    const mcp = await loadMcp(
      { mcpServers: everything },
      {
        waitTimeoutMs: 300,
        // A human who never answers; the host watches the signal to close its prompt.
        waitFor: (_request, info) => {
          infos.push(info);
          info.signal.addEventListener("abort", () => {
            abortedWith = info.signal.reason;
          });
          return new Promise(() => {});
        },
      },
    );
    try {
      const ask = mcp.tools().find((tool) => tool.name === "ev_trigger-elicitation-request")!;
      const result = await ask.execute({}, { callId: "q" });
      expect(result.output).toContain("cancel");
      expect(infos).toHaveLength(1);
      expect(infos[0]?.signal.aborted).toBe(true);
      expect(abortedWith).toMatchObject({ name: "TimeoutError" });
      expect(infos[0]?.call.id).toBe("q");
    } finally {
      await mcp.close();
    }
  }, 60_000);

  it("aborts when the call is cancelled while the human is asked", async () => {
    const infos: McpWaitInfo[] = [];
    const mcp = await loadMcp(
      { mcpServers: everything },
      {
        waitFor: (_request, info) => {
          infos.push(info);
          return new Promise(() => {});
        },
      },
    );
    try {
      const ask = mcp.tools().find((tool) => tool.name === "ev_trigger-elicitation-request")!;
      const controller = new AbortController();
      const pendingCall = ask.execute({}, { signal: controller.signal });
      await new Promise<void>((resolve) => {
        const check = () => (infos.length > 0 ? resolve() : setTimeout(check, 20));
        check();
      });
      controller.abort(new Error("stop"));
      const result = await pendingCall;
      expect(result).toMatchObject({ isError: true, metadata: { cancelled: true } });
      expect(infos[0]?.signal.aborted).toBe(true);
    } finally {
      await mcp.close();
    }
  }, 60_000);
});
