// Retry hints, error codes and redaction on error responses shaped as OpenAI and Anthropic send
// them (see the adapters' __fixtures__/errors.json for the documented shapes).
import { afterEach, describe, expect, it } from "vitest";
import { errorDetails } from "./error-body.js";
import { ProviderError } from "./errors.js";
import { type HttpSettings, postJson } from "./http.js";
import { parseRetryAfterMs, retryHints } from "./retry.js";
import { type MockReply, type MockServer, mockServerPerTest } from "./testing.js";

// 21 characters, like the key of the report.
const SECRET = "sk-test-0123456789abc";
const mock = mockServerPerTest(afterEach);

function serve(script: readonly MockReply[]): Promise<MockServer> {
  return mock.serve(script);
}

function settings(overrides: Partial<HttpSettings> = {}): HttpSettings {
  return { provider: "test", retries: 2, retryBaseMs: 5, secrets: [SECRET], ...overrides };
}

function request(url: string) {
  return {
    url: `${url}/v1/thing`,
    headers: { "content-type": "application/json", authorization: `Bearer ${SECRET}` },
    body: {},
  };
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  try {
    await promise;
  } catch (thrown) {
    expect(thrown).toBeInstanceOf(ProviderError);
    return thrown as ProviderError;
  }
  throw new Error("expected a rejection");
}

describe("retry hints", () => {
  it("parses retry-after-ms and x-should-retry", () => {
    expect(parseRetryAfterMs("250")).toBe(250);
    expect(parseRetryAfterMs(" 12.5 ")).toBe(12.5);
    for (const bad of ["-1", "soon", "", "1e3"]) expect(parseRetryAfterMs(bad)).toBeUndefined();
    expect(
      retryHints(
        new Headers({ "retry-after-ms": "20", "retry-after": "5", "x-should-retry": "TRUE" }),
      ),
    ).toEqual({ retryAfterMs: 20, shouldRetry: true });
    expect(retryHints(new Headers({ "retry-after": "2", "x-should-retry": "false" }))).toEqual({
      retryAfterMs: 2000,
      shouldRetry: false,
    });
    expect(retryHints(new Headers({ "x-should-retry": "maybe" }))).toEqual({
      retryAfterMs: undefined,
      shouldRetry: undefined,
    });
  });

  it("honours retry-after-ms over Retry-After", async () => {
    const { url, requests } = await serve([
      {
        status: 429,
        // Were Retry-After honoured the test would wait an hour.
        headers: { "retry-after-ms": "30", "retry-after": "3600" },
        json: { error: { message: "rate", type: "requests", code: "rate_limit_exceeded" } },
      },
      { json: { ok: true } },
    ]);
    expect(await postJson(request(url), settings())).toEqual({ ok: true });
    expect(requests).toHaveLength(2);
  });

  it("caps a server-given wait at maxRetryDelayMs", async () => {
    const { url, requests } = await serve([
      { status: 503, headers: { "retry-after": "3600" }, text: "" },
      { json: { ok: true } },
    ]);
    const started = Date.now();
    expect(await postJson(request(url), settings({ maxRetryDelayMs: 20 }))).toEqual({ ok: true });
    expect(requests).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("keeps the server's own delay on the error, uncapped", async () => {
    const { url } = await serve([{ status: 429, headers: { "retry-after": "3600" }, text: "" }]);
    const error = await failure(
      postJson(request(url), settings({ retries: 1, maxRetryDelayMs: 1 })),
    );
    expect(error.retryAfterMs).toBe(3_600_000);
  });

  it("x-should-retry: false is never retried, whatever the status", async () => {
    // A 429 Anthropic-shaped, which the server says not to retry.
    const { url, requests } = await serve([
      {
        status: 429,
        headers: { "x-should-retry": "false", "request-id": "req_011CVLou46LSJLFLPjsBqzuT" },
        json: {
          type: "error",
          error: {
            type: "rate_limit_error",
            message: "Number of requests has exceeded your rate limit",
          },
          request_id: "req_011CVLou46LSJLFLPjsBqzuT",
        },
      },
      { json: { ok: true } },
    ]);
    const error = await failure(postJson(request(url), settings()));
    expect(requests).toHaveLength(1);
    expect(error).toMatchObject({
      status: 429,
      retryable: false,
      providerType: "rate_limit_error",
    });
  });

  it("x-should-retry: true retries a status that is not retried by default", async () => {
    const { url, requests } = await serve([
      {
        status: 409,
        headers: { "x-should-retry": "true" },
        json: { error: { message: "conflict", type: "invalid_request_error", code: null } },
      },
      { json: { ok: true } },
    ]);
    expect(await postJson(request(url), settings())).toEqual({ ok: true });
    expect(requests).toHaveLength(2);
  });
});

describe("provider error codes", () => {
  it("exposes OpenAI's error.code beside its type", async () => {
    const { url } = await serve([
      {
        status: 400,
        headers: { "content-type": "application/json; charset=utf-8" },
        json: {
          error: {
            message:
              "This model's maximum context length is 128000 tokens. However, your messages resulted in 200022 tokens. Please reduce the length of the messages.",
            type: "invalid_request_error",
            param: "messages",
            code: "context_length_exceeded",
          },
        },
      },
    ]);
    const error = await failure(postJson(request(url), settings()));
    expect(error).toMatchObject({
      status: 400,
      providerType: "invalid_request_error",
      providerCode: "context_length_exceeded",
      retryable: false,
    });
  });

  it("leaves providerCode out when the body has none", () => {
    expect(
      errorDetails('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'),
    ).toEqual({ message: "Overloaded", type: "overloaded_error" });
    expect(
      errorDetails('{"error":{"message":"m","type":"server_error","param":null,"code":null}}'),
    ).toEqual({ message: "m", type: "server_error" });
  });
});

describe("redaction on errors", () => {
  it("redacts the key before a non-JSON body is cut to 200 characters", async () => {
    // The key straddles the cut: 181 characters of page, then the 21-character key.
    const page = `<html><body>${"x".repeat(169)}${SECRET} echoed back</body></html>`;
    expect(page.indexOf(SECRET)).toBe(181);
    const { url } = await serve([{ status: 502, text: page }]);
    const error = await failure(postJson(request(url), settings({ retries: 0 })));
    const everything = `${error.message} ${error.providerMessage} ${JSON.stringify(error)}`;
    // Not even the start of the key survives the cut.
    expect(everything).not.toContain(SECRET.slice(0, 12));
    expect(error.providerMessage).toContain("[redacted]");
  });

  it("redacts the key from a body whose JSON has no message", () => {
    const body = JSON.stringify({ error: { detail: `bad key ${SECRET}`, pad: "y".repeat(300) } });
    expect(errorDetails(body, [SECRET]).message).not.toContain(SECRET.slice(0, 8));
  });

  it("redacts the key from every response header kept on the error", async () => {
    const { url } = await serve([
      {
        status: 401,
        headers: {
          "x-request-id": `req_${SECRET}`,
          "x-echo": `Bearer ${SECRET}`,
          "set-cookie": "session=abc",
          "x-ratelimit-remaining-requests": "0",
        },
        json: { error: { message: "Incorrect API key provided", code: "invalid_api_key" } },
      },
    ]);
    const error = await failure(postJson(request(url), settings()));
    expect(error.requestId).toBe("req_[redacted]");
    expect(error.responseHeaders?.["x-echo"]).toBe("Bearer [redacted]");
    expect(error.responseHeaders?.["x-ratelimit-remaining-requests"]).toBe("0");
    expect(error.responseHeaders?.["set-cookie"]).toBeUndefined();
    expect(error.providerCode).toBe("invalid_api_key");
    expect(`${JSON.stringify(error)} ${error.message}`).not.toContain(SECRET);
  });
});
