// Hostile text (a tool output or a model's words carrying blank lines, `data:` lines, CR and
// control characters) stays inside its event: the raw body is read frame by frame, as a proxy or
// HttpAgent's SSE reader would, and every frame is one JSON `data:` line or a comment.
import { createClient, memoryRunStore } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import { describe, expect, it } from "vitest";
import { serve, testHandlerOptions } from "./test-kit.js";

const HOSTILE = 'x\n\ndata: {"type":"RUN_FINISHED"}\n\nid: 9\revent: y\r\nz\u0000\u2028';

describe("SSE framing", () => {
  it("keeps a tool output and text with newlines, CR and data: lines inside one frame each", async () => {
    const store = memoryRunStore();
    const client = createClient({
      model: scriptedModel([
        { content: HOSTILE, toolCalls: [{ id: "call_echo", name: "echo" }] },
        { content: "done" },
      ]),
      tools: [
        {
          name: "echo",
          description: "Returns hostile text",
          inputSchema: { type: "object", properties: {} },
          source: "custom",
          execute: async () => ({ output: HOSTILE, isError: false }),
        },
      ],
      runs: store,
    });
    const url = await serve(testHandlerOptions(store, client));
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "text/event-stream",
        authorization: "Bearer token-alice",
      },
      body: JSON.stringify({
        threadId: "T1",
        runId: "R1",
        state: {},
        messages: [{ id: "m1", role: "user", content: "go" }],
        tools: [],
        context: [],
        forwardedProps: {},
      }),
    });
    expect(response.status).toBe(200);
    const body = await response.text();
    expect(body).not.toContain("\r");
    expect(body.endsWith("\n\n")).toBe(true);
    const events: { type: string; [key: string]: unknown }[] = [];
    for (const frame of body.slice(0, -2).split("\n\n")) {
      const lines = frame.split("\n");
      expect(lines).toHaveLength(1); // one line a frame: nothing hostile made a second
      const [line] = lines as [string];
      if (line.startsWith(":")) continue;
      expect(line.startsWith("data: ")).toBe(true);
      events.push(JSON.parse(line.slice(6)));
    }
    expect(events.find((e) => e.type === "TOOL_CALL_RESULT")?.content).toBe(HOSTILE);
    const text = events
      .filter((e) => e.type === "TEXT_MESSAGE_CONTENT")
      .map((e) => e.delta)
      .join("");
    expect(text).toContain(HOSTILE);
    expect(events.filter((e) => e.type === "RUN_FINISHED")).toHaveLength(1);
    expect(events.at(-1)?.type).toBe("RUN_FINISHED");
  });
});
