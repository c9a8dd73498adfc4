// An MCP tool's images and embedded resources as ToolResult.parts: mapped, capped, and carried
// by the loop into the tool message the model reads (server-everything's tools, over stdio).
import { createClient } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import { MAX_PART_BYTES, MAX_PARTS } from "@toolnexus/core";
import { afterAll, describe, expect, it } from "vitest";
import { loadMcp, type McpToolset, toToolResult } from "./index.js";
import { EVERYTHING } from "./test-support.js";

const PNG = "iVBORw0KGgo=";

describe("MCP content as parts", () => {
  it("keeps text, images and text resources in order; binary resources by name only", () => {
    const result = toToolResult({
      content: [
        { type: "text", text: "look" },
        { type: "image", mimeType: "image/png", data: PNG },
        { type: "resource", resource: { uri: "mem://t", mimeType: "text/plain", text: "body" } },
        { type: "resource", resource: { uri: "mem://b", mimeType: "application/zip", blob: PNG } },
        { type: "audio", mimeType: "audio/wav", data: PNG },
      ],
    });
    expect(result.output).toBe("look");
    expect(result.parts).toEqual([
      { type: "text", text: "look" },
      { type: "image", mimeType: "image/png", data: PNG },
      { type: "resource", uri: "mem://t", mimeType: "text/plain", text: "body" },
      { type: "resource", uri: "mem://b", mimeType: "application/zip" },
    ]);
    expect(result.metadata?.partsDropped).toBeUndefined();
  });

  it("gives no parts to a text-only result (the output holds it all)", () => {
    const result = toToolResult({ content: [{ type: "text", text: "a" }] });
    expect(result).toEqual({ output: "a", isError: false, metadata: {} });
  });

  it("leaves out images models do not take, oversized ones and those past the part cap", () => {
    const image = (mimeType: string, data: string) => ({ type: "image", mimeType, data });
    const result = toToolResult({
      content: [
        image("image/svg+xml", PNG),
        image("image/png", "A".repeat(MAX_PART_BYTES + 4)),
        ...Array.from({ length: MAX_PARTS + 2 }, () => image("image/png", PNG)),
      ],
    });
    expect(result.parts).toHaveLength(MAX_PARTS);
    expect(result.metadata?.partsDropped).toBe(4);
  });

  describe("through the loop", () => {
    let mcp: McpToolset | undefined;
    afterAll(async () => {
      await mcp?.close();
    });

    it("server-everything's image and resource reach the model's next request as parts", async () => {
      mcp = await loadMcp({
        mcpServers: { ev: { command: process.execPath, args: [EVERYTHING, "stdio"] } },
      });
      const model = scriptedModel([
        {
          toolCalls: [
            { id: "i1", name: "ev_get-tiny-image", arguments: {} },
            { id: "r1", name: "ev_get-resource-reference", arguments: { resourceId: 2 } },
          ],
        },
        { content: "seen" },
      ]);
      const client = createClient({ model, tools: mcp.tools() });
      expect((await client.run("show me")).text).toBe("seen");
      const sent = model.requests[1]!.messages.filter((m) => m.role === "tool");
      const image = sent.find((m) => m.callId === "i1");
      expect(image?.parts?.map((p) => p.type)).toEqual(["text", "image", "text"]);
      expect(image?.parts?.[1]).toMatchObject({ type: "image", mimeType: "image/png" });
      const resource = sent.find((m) => m.callId === "r1");
      expect(resource?.parts?.find((p) => p.type === "resource")).toMatchObject({
        type: "resource",
        uri: expect.stringContaining("2"),
      });
    });
  });
});
