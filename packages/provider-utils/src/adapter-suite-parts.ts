// The content-part scenarios of the adapter suite: a tool result's images (ToolResult.parts,
// carried in the tool message) reach the provider where it takes them, its resources as text,
// and a result without parts goes exactly as before. Split from adapter-suite.ts to keep one
// concept per file.
import type { ContentPart, Model, ModelRequest } from "@toolnexus/core";
import {
  type MockReply,
  type MockServer,
  type RecordedRequest,
  startMockServer,
} from "./mock-server.js";

/** An image the adapter sent for a tool result, as the harness reads it from a request body. */
export interface KitToolImage {
  /** The call id the image belongs to, when the provider's shape says (absent otherwise). */
  callId?: string;
  mimeType: string;
  /** The base64 data (from a `data:` URL, the part after the comma). */
  data: string;
}

/** What the part scenarios need from the harness and the suite around them. */
export interface PartsContext {
  model(baseUrl: string): Model;
  /** A 2xx reply of the text turn, JSON or streamed as the request asks. */
  okReply(request: RecordedRequest): MockReply;
  /** The images the request sends for tool results, in order. */
  toolImages(request: RecordedRequest): KitToolImage[];
  /** The tool results in the request's last turn (their text). */
  toolResults(request: RecordedRequest): { callId?: string; content: string }[];
  generatedCallIds: boolean;
}

type Vitest = typeof import("vitest");

/** A 1×1 PNG. */
export const KIT_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

const PARTS: ContentPart[] = [
  { type: "text", text: "Sunny, 21°C" },
  { type: "image", mimeType: "image/png", data: KIT_PNG },
  {
    type: "resource",
    uri: "mem://kit/forecast.csv",
    mimeType: "text/csv",
    text: "day,temp\nmon,21",
  },
];

function askWithResult(parts: ContentPart[] | undefined): ModelRequest {
  return {
    messages: [
      { role: "system", content: "You are terse." },
      { role: "user", content: "What is the weather?" },
      {
        role: "assistant",
        id: "kit-resp-call",
        content: "",
        toolCalls: [
          {
            id: "call_kit_1",
            name: "get_weather",
            args: { city: "Zürich" },
            rawArgs: '{"city":"Zürich"}',
          },
        ],
      },
      {
        role: "tool",
        callId: "call_kit_1",
        name: "get_weather",
        content: "Sunny, 21°C",
        isError: false,
        ...(parts === undefined ? {} : { parts }),
      },
    ],
    tools: [
      {
        name: "get_weather",
        description: "The weather in a city",
        inputSchema: { type: "object", properties: { city: { type: "string" } } },
      },
    ],
  };
}

export function partsScenarios(vitest: Vitest, ctx: PartsContext): void {
  const { afterEach, describe, expect, it } = vitest;
  describe("tool result parts", () => {
    let server: MockServer | undefined;
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });
    const sent = async (parts: ContentPart[] | undefined, stream: boolean) => {
      server = await startMockServer((request) => ctx.okReply(request));
      const model = ctx.model(server.url);
      const request = askWithResult(parts);
      if (stream && model.stream !== undefined) {
        for await (const _part of model.stream(request)) {
          // Drained: only the request matters here.
        }
      } else {
        await model.generate(request);
      }
      const recorded = server.requests[0] as RecordedRequest;
      await server.close();
      server = undefined;
      return recorded;
    };

    it("sends a result's image where the provider takes it, and its resource as text", async () => {
      for (const stream of [false, true]) {
        const request = await sent(PARTS, stream);
        const images = ctx.toolImages(request);
        expect(images.map(({ mimeType, data }) => ({ mimeType, data }))).toEqual([
          { mimeType: "image/png", data: KIT_PNG },
        ]);
        if (!ctx.generatedCallIds && images[0]?.callId !== undefined) {
          expect(images[0].callId).toBe("call_kit_1");
        }
        const [result] = ctx.toolResults(request);
        expect(result?.content).toContain("Sunny, 21°C");
        expect(result?.content).toContain("[resource mem://kit/forecast.csv (text/csv)]\nday,temp");
      }
    });

    it("sends a result without parts exactly as its text, with no image", async () => {
      const request = await sent(undefined, false);
      expect(ctx.toolImages(request)).toEqual([]);
      expect(ctx.toolResults(request).map((result) => result.content)).toEqual(["Sunny, 21°C"]);
    });
  });
}

/** The type and base64 data of a `data:` URL (`data:image/png;base64,...`), for harnesses. */
export function fromDataUrl(url: string): { mimeType: string; data: string } {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return match === null ? { mimeType: "", data: url } : { mimeType: match[1]!, data: match[2]! };
}
