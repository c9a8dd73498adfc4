import { afterEach, describe, expect, it } from "vitest";
import { errorDetails } from "./error-body.js";
import { MissingApiKeyError, ProviderError } from "./errors.js";
import {
  type HttpSettings,
  parseEventData,
  postForStream,
  postJson,
  streamEvents,
} from "./http.js";
import { type MockReply, type MockServer, mockServerPerTest, sseEvent } from "./testing.js";

const SECRET = "sk-test-0123456789abcdef";
const mock = mockServerPerTest(afterEach);

function serve(script: readonly MockReply[]): Promise<MockServer> {
  return mock.serve(script);
}

function settings(overrides: Partial<HttpSettings> = {}): HttpSettings {
  return { provider: "test", retries: 2, retryBaseMs: 5, secrets: [SECRET], ...overrides };
}

function request(url: string, signal?: AbortSignal) {
  return {
    url: `${url}/v1/thing`,
    headers: { "content-type": "application/json", authorization: `Bearer ${SECRET}` },
    body: { hello: "wörld" },
    signal,
  };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (thrown) {
    return thrown;
  }
  throw new Error("expected a rejection");
}

describe("postJson", () => {
  it("sends one JSON POST with the headers and returns the parsed answer", async () => {
    const { url, requests } = await serve([{ json: { ok: true } }]);
    expect(await postJson(request(url), settings())).toEqual({ ok: true });
    expect(requests).toHaveLength(1);
    expect(requests[0]?.method).toBe("POST");
    expect(requests[0]?.path).toBe("/v1/thing");
    expect(requests[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(requests[0]?.headers["content-type"]).toBe("application/json");
    expect(requests[0]?.body).toEqual({ hello: "wörld" });
  });

  it("retries 429, 500, 502, 503 and 504, then succeeds", async () => {
    const { url, requests } = await serve([
      { status: 429, json: { error: { message: "slow down" } } },
      { status: 500, json: { error: { message: "boom" } } },
      { status: 502, text: "bad gateway" },
      { status: 503, text: "" },
      { status: 504, text: "" },
      { json: { ok: 1 } },
    ]);
    expect(await postJson(request(url), settings({ retries: 5 }))).toEqual({ ok: 1 });
    expect(requests).toHaveLength(6);
  });

  it("gives up after `retries` retries with the last error", async () => {
    const { url, requests } = await serve([
      { status: 500, json: { error: { message: "internal", type: "server_error" } } },
    ]);
    const error = await failure(postJson(request(url), settings({ retries: 2 })));
    expect(requests).toHaveLength(3);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({
      code: "provider_http",
      status: 500,
      providerMessage: "internal",
      providerType: "server_error",
      retryable: true,
    });
  });

  it("retries: 0 sends exactly once", async () => {
    const { url, requests } = await serve([{ status: 503, text: "" }]);
    await expect(postJson(request(url), settings({ retries: 0 }))).rejects.toBeInstanceOf(
      ProviderError,
    );
    expect(requests).toHaveLength(1);
  });

  it("fails at once on a 4xx other than 429, with status and message but never the key", async () => {
    const { url, requests } = await serve([
      {
        status: 401,
        headers: { "x-request-id": "req_42" },
        json: {
          error: {
            message: `Incorrect API key provided: ${SECRET}. You can find your key elsewhere.`,
            type: "invalid_request_error",
            code: "invalid_api_key",
          },
        },
      },
    ]);
    const error = await failure(postJson(request(url), settings()));
    expect(requests).toHaveLength(1);
    expect(error).toBeInstanceOf(ProviderError);
    const providerError = error as ProviderError;
    expect(providerError.status).toBe(401);
    expect(providerError.retryable).toBe(false);
    expect(providerError.requestId).toBe("req_42");
    expect(providerError.message).toContain("401");
    expect(providerError.message).toContain("Incorrect API key provided");
    const everything = `${providerError.message} ${providerError.stack} ${JSON.stringify(providerError)} ${providerError.providerMessage}`;
    expect(everything).not.toContain(SECRET);
  });

  it("honours Retry-After in whole seconds", async () => {
    const { url, requests } = await serve([
      { status: 429, headers: { "retry-after": "1" }, json: { error: { message: "rate" } } },
      { json: { ok: true } },
    ]);
    const started = Date.now();
    expect(await postJson(request(url), settings({ retryBaseMs: 1 }))).toEqual({ ok: true });
    expect(requests).toHaveLength(2);
    // It waited (about) the second the server asked for, not the 1 ms backoff.
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it("Retry-After: 0 retries now; a date or a fraction falls back to backoff", async () => {
    const { url, requests } = await serve([
      { status: 429, headers: { "retry-after": "0" }, text: "" },
      { status: 503, headers: { "retry-after": "Wed, 21 Oct 2099 07:28:00 GMT" }, text: "" },
      { status: 503, headers: { "retry-after": "1.5" }, text: "" },
      { json: { ok: true } },
    ]);
    // Were the date honoured the test would time out; backoff from 5 ms is quick.
    expect(await postJson(request(url), settings({ retries: 3 }))).toEqual({ ok: true });
    expect(requests).toHaveLength(4);
  });

  it("exposes the server's Retry-After on the error when retries run out", async () => {
    const { url } = await serve([{ status: 429, headers: { "retry-after": "0" }, text: "" }]);
    const error = await failure(postJson(request(url), settings({ retries: 1 })));
    expect(error).toMatchObject({ status: 429, retryAfterMs: 0, retryable: true });
  });

  it("retries a dropped connection", async () => {
    const { url, requests } = await serve([{ drop: true }, { json: { ok: true } }]);
    expect(await postJson(request(url), settings())).toEqual({ ok: true });
    expect(requests).toHaveLength(2);
  });

  it("a connection that keeps dropping is a network ProviderError", async () => {
    const { url, requests } = await serve([{ drop: true }]);
    const error = await failure(postJson(request(url), settings({ retries: 1 })));
    expect(requests).toHaveLength(2);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ code: "provider_network", retryable: true });
  });

  it("a refused connection is a network ProviderError", async () => {
    const { url } = await serve([{ json: {} }]);
    await mock.server?.close();
    const error = await failure(postJson(request(url), settings({ retries: 0 })));
    expect(error).toMatchObject({ code: "provider_network" });
  });

  it("malformed JSON in a 200 is a response error, not retried", async () => {
    const { url, requests } = await serve([{ text: '{"id": "chatcmpl-1", "choices": [' }]);
    const error = await failure(postJson(request(url), settings()));
    expect(requests).toHaveLength(1);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ code: "provider_response", status: 200 });
    expect((error as Error).message).toContain("not valid JSON");
  });

  it("an abort while the server is slow rejects with the abort reason and is not retried", async () => {
    const { url, requests } = await serve([{ delayMs: 30_000, reply: { json: { ok: true } } }]);
    const controller = new AbortController();
    const reason = new Error("user cancelled");
    const call = postJson(request(url, controller.signal), settings());
    while (requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(requests).toHaveLength(1);
  });

  it("an abort during the backoff wait rejects at once", async () => {
    const { url, requests } = await serve([
      { status: 429, headers: { "retry-after": "30" }, text: "" },
    ]);
    const controller = new AbortController();
    const call = postJson(request(url, controller.signal), settings());
    while (requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    const error = await failure(call);
    expect((error as Error).name).toBe("AbortError");
    expect(requests).toHaveLength(1);
  });

  it("an already aborted signal sends nothing", async () => {
    const { url, requests } = await serve([{ json: {} }]);
    const controller = new AbortController();
    controller.abort();
    await expect(postJson(request(url, controller.signal), settings())).rejects.toMatchObject({
      name: "AbortError",
    });
    expect(requests).toHaveLength(0);
  });

  it("an abort is honoured even by a custom fetch that ignores the signal", async () => {
    const controller = new AbortController();
    const reason = new Error("stop");
    const call = postJson(
      request("http://127.0.0.1:9", controller.signal),
      settings({ fetch: () => new Promise<Response>(() => {}) }),
    );
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
  });
});

describe("postForStream and streamEvents", () => {
  it("retries until the stream starts, then yields its events", async () => {
    const { url, requests } = await serve([
      { status: 503, text: "" },
      { chunks: [sseEvent({ n: 1 }), sseEvent({ n: 2 }, "named"), "data: [DONE]\n\n"] },
    ]);
    const response = await postForStream(request(url), settings());
    const events = [];
    for await (const event of streamEvents(response, undefined, settings())) events.push(event);
    expect(requests).toHaveLength(2);
    expect(events).toEqual([
      { event: "message", data: '{"n":1}' },
      { event: "named", data: '{"n":2}' },
      { event: "message", data: "[DONE]" },
    ]);
  });

  it("a connection lost mid-stream is a network ProviderError", async () => {
    const { url } = await serve([{ chunks: [sseEvent({ n: 1 }), 'data: {"n":'], drop: true }]);
    const response = await postForStream(request(url), settings());
    const seen: string[] = [];
    const error = await failure(
      (async () => {
        for await (const event of streamEvents(response, undefined, settings())) {
          seen.push(event.data);
        }
      })(),
    );
    expect(seen).toEqual(['{"n":1}']);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ code: "provider_network" });
  });

  it("an abort mid-stream rejects with the reason", async () => {
    const { url } = await serve([
      { chunks: [sseEvent({ n: 1 }), sseEvent({ n: 2 })], chunkDelayMs: 30_000 },
    ]);
    const controller = new AbortController();
    const reason = new Error("enough");
    const response = await postForStream(request(url, controller.signal), settings());
    const error = await failure(
      (async () => {
        for await (const _event of streamEvents(response, controller.signal, settings())) {
          controller.abort(reason);
        }
      })(),
    );
    expect(error).toBe(reason);
  });

  it("parseEventData turns bad JSON into a response error", () => {
    expect(parseEventData({ event: "message", data: '{"a":1}' }, settings())).toEqual({ a: 1 });
    expect(() => parseEventData({ event: "message", data: "{oops" }, settings())).toThrow(
      ProviderError,
    );
  });
});

describe("errorDetails", () => {
  it("reads the common error body shapes", () => {
    expect(errorDetails('{"error":{"message":"m","type":"t"}}')).toEqual({
      message: "m",
      type: "t",
    });
    expect(
      errorDetails('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'),
    ).toEqual({
      message: "Overloaded",
      type: "overloaded_error",
    });
    expect(errorDetails('{"error":{"message":"m","code":429}}')).toEqual({
      message: "m",
      type: "429",
      code: "429",
    });
    expect(errorDetails('{"error":"model \\"x\\" not found"}')).toEqual({
      message: 'model "x" not found',
    });
    expect(errorDetails('{"detail":"Not Found"}')).toEqual({ message: "Not Found" });
    expect(errorDetails("<html>  Bad   Gateway </html>")).toEqual({
      message: "<html> Bad Gateway </html>",
    });
    expect(errorDetails("")).toEqual({});
  });

  it("redacts a secret in every field, JSON-escaped or not", () => {
    const key = "sk-details-9f8e7d";
    const body = `{"error":{"message":"bad \\u0073k-details-9f8e7d","type":"${key}","code":"c_\\u0073k-details-9f8e7d"}}`;
    expect(JSON.stringify(JSON.parse(body))).toContain(key);
    expect(errorDetails(body, [key])).toEqual({
      message: "bad [redacted]",
      type: "[redacted]",
      code: "c_[redacted]",
    });
  });
});

describe("MissingApiKeyError", () => {
  it("names the variables", () => {
    const error = new MissingApiKeyError("openai", ["OPENAI_API_KEY", "OPENROUTER_API_KEY"]);
    expect(error.code).toBe("missing_api_key");
    expect(error.message).toContain("OPENAI_API_KEY or OPENROUTER_API_KEY");
  });
});
