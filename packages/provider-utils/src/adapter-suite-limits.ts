// The size-cap scenarios of the adapter suite: what a huge or endless answer (an error body, one
// event, a whole response, a stream of many small events) can make the adapter hold in memory.
// Split from adapter-suite-trust.ts, which registers them, to keep one concept per file.
import type { Model, ModelStreamPart } from "@toolnexus/core";
import type { KitErrorReport, TrustContext } from "./adapter-suite-context.js";
import type { ProviderError } from "./errors.js";
import { DEFAULT_MAX_EVENT_BYTES } from "./limits.js";
import type { MockReply, MockServer, RecordedRequest } from "./mock-server.js";

type Vitest = typeof import("vitest");

/** What the size-cap scenarios share with the trust scenarios around them. */
export interface LimitHelpers {
  /** Starts a mock server, closed after the test. */
  serve(script: (request: RecordedRequest, index: number) => MockReply): Promise<MockServer>;
  /** Generate, and stream when the model streams. */
  calls(m: Model): (() => Promise<unknown>)[];
  /** The call's rejection (or a marker error when it resolved). */
  failure(call: () => Promise<unknown>): Promise<unknown>;
  /** The text of a stream, read to its end. */
  drain(stream: AsyncIterable<ModelStreamPart>): Promise<string>;
}

/** Registers the size-cap scenarios (inside the trust scenarios' own `describe`). */
export function limitScenarios(vitest: Vitest, ctx: TrustContext, helpers: LimitHelpers): void {
  const { describe, expect, it, vi } = vitest;
  const { serve, calls, failure, drain } = helpers;

  describe("size caps", () => {
    const CHUNK = new Uint8Array(64 * 1024).fill(0x78); // 64 KiB of "x"

    it("a 1 MB error body gives a short error", async () => {
      const server = await serve(() => ({
        status: 400,
        json: ctx.errorReport.http(400, { ...report400, message: "m".repeat(1_000_000) }),
      }));
      for (const call of calls(ctx.model({ baseUrl: server.url, retries: 0 }))) {
        const error = await failure(call);
        expect(error).toMatchObject({ code: "provider_http", status: 400 });
        expect((error as Error).message.length).toBeLessThan(2_200);
        expect(String((error as ProviderError).providerMessage).length).toBeLessThan(2_200);
      }
    });

    it("an endless error body is read only up to maxErrorBodyBytes (default 64 KiB)", async () => {
      const server = await serve(() => ({
        status: 500,
        headers: { "content-type": "application/json" },
        chunks: ['{"error":{"message":"', ...Array<Uint8Array>(512).fill(CHUNK)],
        chunkDelayMs: 0,
      }));
      const error = await failure(() =>
        ctx.model({ baseUrl: server.url, retries: 0 }).generate(ctx.request),
      );
      expect(error).toMatchObject({ code: "provider_http", status: 500 });
      // 32 MiB offered; what the client took is the cap plus socket buffers.
      await vi.waitFor(() => expect(server.sent[0]).toBeGreaterThan(0));
      expect(server.sent[0]).toBeLessThan(16 * 1024 * 1024);
    }, 60_000);

    it("one streamed event past maxEventBytes stops the stream with provider_limit", async () => {
      const server = await serve(() => ({
        chunks: ["data: ", ...Array<Uint8Array>(1024).fill(CHUNK)],
        chunkDelayMs: 0,
      }));
      const m = ctx.model({ baseUrl: server.url, retries: 2, maxEventBytes: 256 * 1024 });
      if (m.stream === undefined) return;
      const error = await failure(() => drain(m.stream!(ctx.request)));
      expect(error).toMatchObject({ code: "provider_limit", retryable: false });
      expect((error as Error).message).toContain("maxEventBytes (262144 bytes)");
      expect(server.requests).toHaveLength(1);
      // 64 MiB offered: reading stopped near the cap.
      expect(server.sent[0]).toBeLessThan(16 * 1024 * 1024);
    }, 60_000);

    it("the default event cap is 16 MiB", async () => {
      const server = await serve(() => ({
        chunks: ["data: ", ...Array<Uint8Array>(384).fill(CHUNK)],
        chunkDelayMs: 0,
      }));
      const m = ctx.model({ baseUrl: server.url, retries: 0 });
      if (m.stream === undefined) return;
      const error = await failure(() => drain(m.stream!(ctx.request)));
      expect(error).toMatchObject({ code: "provider_limit" });
      expect((error as Error).message).toContain(`(${DEFAULT_MAX_EVENT_BYTES} bytes)`);
    }, 60_000);

    it("an answer past maxResponseBytes is provider_limit, not read whole", async () => {
      const server = await serve(() => ({
        headers: { "content-type": "application/json" },
        chunks: ['{"id":"', ...Array<Uint8Array>(64).fill(CHUNK)],
        chunkDelayMs: 0,
      }));
      const error = await failure(() =>
        ctx
          .model({ baseUrl: server.url, retries: 2, maxResponseBytes: 128 * 1024 })
          .generate(ctx.request),
      );
      expect(error).toMatchObject({ code: "provider_limit", retryable: false });
      expect((error as Error).message).toContain("maxResponseBytes (131072 bytes)");
      expect(server.requests).toHaveLength(1);
    });
    it("a stream past maxResponseBytes in all stops with provider_limit, however small its events", async () => {
      // Lines of 64 KiB that no event cap sees (finished keep-alive comments): only the total
      // can stop them. 64 MiB offered.
      const line = `: ${"k".repeat(64 * 1024 - 3)}\n`;
      const server = await serve(() => ({
        chunks: Array<string>(1024).fill(line),
        chunkDelayMs: 0,
      }));
      const m = ctx.model({ baseUrl: server.url, retries: 2, maxResponseBytes: 256 * 1024 });
      if (m.stream === undefined) return;
      const error = await failure(() => drain(m.stream!(ctx.request)));
      expect(error).toMatchObject({ code: "provider_limit", retryable: false });
      expect((error as Error).message).toContain("maxResponseBytes (262144 bytes)");
      expect(server.requests).toHaveLength(1);
      // The body was cancelled near the cap, not read to its end.
      expect(server.sent[0]).toBeLessThan(16 * 1024 * 1024);
    }, 60_000);

    it("a stream within maxResponseBytes in all is read whole", async () => {
      const server = await serve((request) => ctx.okReply(request));
      const m = ctx.model({ baseUrl: server.url, retries: 0, maxResponseBytes: 64 * 1024 });
      if (m.stream === undefined) return;
      expect(await drain(m.stream(ctx.request))).toBe(ctx.expectedText);
    });
  });
}

const report400: KitErrorReport = {
  status: 400,
  message: "",
  type: "invalid_request_error",
  code: "invalid_value",
};
