import { memoryRunStore } from "@toolnexus/client";
import { describe, expect, it } from "vitest";
import { createWebHandler } from "./handler.js";
import type { WebHandlerOptions } from "./options.js";

const base: WebHandlerOptions = { store: memoryRunStore(), identify: () => undefined };

describe("createWebHandler options", () => {
  it.each([
    ["no store", { store: undefined }, /store must be a RunStore/],
    ["no identify", { identify: undefined }, /identify\(request\) must be a function/],
    ["allow not a function", { allow: true }, /allow must be a function/],
    ["a basePath that is not a path", { basePath: "api" }, /basePath/],
    ["an origin with a path", { allowedOrigins: ["https://app.example.com/x"] }, /allowedOrigins/],
    ["an origin that is no URL", { allowedOrigins: ["app.example.com"] }, /allowedOrigins/],
    ["maxBodyBytes 0", { maxBodyBytes: 0 }, /maxBodyBytes/],
    ["maxListItems over the most", { maxListItems: 10_000 }, /maxListItems/],
    ["heartbeatMs negative", { heartbeatMs: -1 }, /heartbeatMs/],
    ["pollMs NaN", { pollMs: Number.NaN }, /pollMs/],
  ])("refuses %s with a TypeError naming it", (_name, bad, message) => {
    expect(() => createWebHandler({ ...base, ...bad } as WebHandlerOptions)).toThrow(message);
  });

  it("accepts a trailing slash on basePath and origins", async () => {
    const handler = createWebHandler({
      ...base,
      basePath: "/api/",
      allowedOrigins: ["https://app.example.com/"],
    });
    const response = await handler(new Request("http://localhost/api/requests"));
    expect(response.status).toBe(401);
  });
});
