import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_MAX_ERROR_BODY_BYTES, limitOptions, readCapped } from "./limits.js";
import { type MockServer, startMockServer } from "./mock-server.js";

let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("readCapped", () => {
  it("reads a body under the cap whole", async () => {
    server = await startMockServer([{ text: "héllo" }]);
    const read = await readCapped(await fetch(server.url), 100);
    expect(read).toEqual({ text: "héllo", truncated: false });
  });

  it("a body exactly at the cap is not truncated", async () => {
    server = await startMockServer([{ text: "abcd" }]);
    expect(await readCapped(await fetch(server.url), 4)).toEqual({
      text: "abcd",
      truncated: false,
    });
  });

  it("stops at the cap and cancels the rest of an endless body", async () => {
    const chunk = new Uint8Array(64 * 1024).fill(0x61);
    server = await startMockServer([{ chunks: Array(1024).fill(chunk), chunkDelayMs: 0 }]);
    const read = await readCapped(await fetch(server.url), 100_000);
    expect(read.truncated).toBe(true);
    expect(read.text).toBe("a".repeat(100_000));
    // 64 MiB offered; the client took the cap plus what sockets buffer.
    expect(server.sent[0]).toBeLessThan(16 * 1024 * 1024);
  }, 60_000);

  it("a multi-byte character cut by the cap is dropped, not garbled", async () => {
    server = await startMockServer([{ text: "ab€cd" }]);
    expect(await readCapped(await fetch(server.url), 3)).toEqual({ text: "ab", truncated: true });
  });
});

describe("limitOptions", () => {
  it("fills in the defaults and refuses a bad cap, naming it", () => {
    expect(limitOptions("x", {}).maxErrorBodyBytes).toBe(DEFAULT_MAX_ERROR_BODY_BYTES);
    expect(limitOptions("x", { maxEventBytes: 10 }).maxEventBytes).toBe(10);
    expect(() => limitOptions("x", { maxEventBytes: 0 })).toThrow(/maxEventBytes/);
    expect(() => limitOptions("x", { maxResponseBytes: 1.5 })).toThrow(/maxResponseBytes/);
  });
});
