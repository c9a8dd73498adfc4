// The API key and a gateway token echoed back in an error body, JSON-escaped or cut by
// maxErrorBodyBytes, against a real HTTP server: no rendering of the error holds either.
import { inspect } from "node:util";
import type { Model } from "@toolnexus/core";
import type { ProviderError } from "@toolnexus/provider-utils";
import { type MockReply, mockServerPerTest } from "@toolnexus/provider-utils/testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type OpenAIOptions, openai } from "./model.js";

const KEY = "sk-test-Ab/Cd+EfGh1234567890";
const TOKEN = "tok_9a8b7c6ds5e4f3g2";
const mock = mockServerPerTest(afterEach);

beforeEach(() => {
  vi.stubEnv("OPENAI_BASE_URL", "");
});

afterEach(() => {
  vi.unstubAllEnvs();
});

async function failure(reply: MockReply, options: Partial<OpenAIOptions> = {}) {
  const server = await mock.serve([reply]);
  const m: Model = openai({
    model: "gpt-4o-mini",
    baseUrl: `${server.url}/v1`,
    apiKey: KEY,
    headers: { "x-gateway-token": TOKEN },
    retries: 0,
    ...options,
  });
  const error = (await m.generate({ messages: [{ role: "user", content: "hi" }], tools: [] }).then(
    () => new Error("expected the call to fail"),
    (thrown: unknown) => thrown,
  )) as ProviderError;
  expect(error).toMatchObject({ code: "provider_http", provider: "openai" });
  return error;
}

/** Everything the error shows, escapes undone as a reader of a log would. */
function shown(error: ProviderError): string {
  return [error.message, error.providerMessage, JSON.stringify(error), inspect(error)]
    .join("\n")
    .replace(/\\+u([0-9a-fA-F]{4})/g, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    )
    .replace(/\\+\//g, "/");
}

const json = (text: string): MockReply => ({
  status: 400,
  headers: { "content-type": "application/json" },
  text,
});

describe("secrets echoed in an error body", () => {
  it("\\u-escaped in a body of no known shape", async () => {
    const error = await failure(json(`{"received_key":"\\u0073${KEY.slice(1)}"}`));
    expect(error.providerMessage).toBe('{"received_key":"[redacted]"}');
    expect(shown(error)).not.toContain(KEY.slice(0, 8));
  });

  it("with `\\/` (PHP-style) in an error object without a message", async () => {
    const param = JSON.stringify(`key ${KEY}`).replace("/", "\\/");
    const error = await failure(
      json(`{"error":{"type":"invalid_request_error","code":"bad_key","param":${param}}}`),
    );
    expect(error).toMatchObject({ providerType: "invalid_request_error", providerCode: "bad_key" });
    expect(error.providerMessage).toContain("key [redacted]");
    expect(shown(error)).not.toContain(KEY.slice(0, 8));
  });

  it("the gateway token cut by maxErrorBodyBytes where the longer key matches one character", async () => {
    const body = `upstream rejected credential ${TOKEN}`;
    const error = await failure(
      { status: 401, headers: { "content-type": "text/plain" }, text: body },
      { maxErrorBodyBytes: body.indexOf(TOKEN) + 13 },
    );
    expect(error.message).toBe("openai: HTTP 401: upstream rejected credential [redacted]");
    expect(shown(error)).not.toContain("tok_");
  });
});
