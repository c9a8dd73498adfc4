// Error bodies that echo a secret JSON-escaped, or cut inside one, against a real HTTP server:
// no rendering of the ProviderError may hold the secret or its start, and the provider's own
// message is still shown.
import { inspect } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { ProviderError } from "./errors.js";
import { type HttpSettings, postJson } from "./http.js";
import { type MockReply, mockServerPerTest } from "./testing.js";

const KEY = "sk-test-Ab/Cd+EfGh1234567890";
const TOKEN = "tok_9a8b7c6ds5e4f3g2"; // a gateway header's value, also a secret
const mock = mockServerPerTest(afterEach);

function settings(overrides: Partial<HttpSettings> = {}): HttpSettings {
  return { provider: "test", retries: 0, retryBaseMs: 1, secrets: [KEY, TOKEN], ...overrides };
}

/** The error a POST to a server answering `reply` ends in. */
async function errorFor(reply: MockReply, overrides: Partial<HttpSettings> = {}) {
  const { url } = await mock.serve([reply]);
  const request = { url: `${url}/v1/x`, headers: { authorization: `Bearer ${KEY}` }, body: {} };
  const thrown = await postJson(request, settings(overrides)).then(
    () => new Error("expected the call to fail"),
    (error: unknown) => error,
  );
  expect(thrown).toBeInstanceOf(ProviderError);
  return thrown as ProviderError;
}

/** Every way the error is shown, escapes undone once more (as a reader of a log would). */
function shown(error: ProviderError): string {
  const text = [error.message, error.providerMessage, JSON.stringify(error), inspect(error)];
  return text
    .join("\n")
    .replace(/\\+u([0-9a-fA-F]{4})/g, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    )
    .replace(/\\+\//g, "/");
}

const statusText = (status: number, text: string): MockReply => ({
  status,
  headers: { "content-type": "application/json" },
  text,
});

describe("a secret echoed JSON-escaped in an error body", () => {
  it("\\u-escaped in a body of no known shape: the body is shown, the key redacted", async () => {
    const error = await errorFor(statusText(400, `{"received_key":"\\u0073${KEY.slice(1)}"}`));
    expect(error.message).toBe('test: HTTP 400: {"received_key":"[redacted]"}');
    expect(error.providerMessage).toBe('{"received_key":"[redacted]"}');
    expect(shown(error)).not.toContain(KEY.slice(0, 8));
  });

  it("with `\\/` in an error object without a message: the type stays, the key goes", async () => {
    const body = `{"error":{"type":"invalid_request_error","code":"bad_key","param":"key ${KEY.replace("/", "\\/")}"}}`;
    const error = await errorFor(statusText(400, body));
    expect(error).toMatchObject({ providerType: "invalid_request_error", providerCode: "bad_key" });
    expect(error.providerMessage).toContain('"param":"key [redacted]"');
    expect(shown(error)).not.toContain(KEY.slice(0, 8));
  });

  it("in the provider's message: the message is still shown, redacted", async () => {
    const spelled = [...KEY].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
    const body = `{"error":{"message":"Incorrect API key: ${spelled.join("")}","type":"auth"}}`;
    const error = await errorFor(statusText(401, body));
    expect(error.providerMessage).toBe("Incorrect API key: [redacted]");
    expect(error.message).toBe("test: HTTP 401: Incorrect API key: [redacted]");
    expect(shown(error)).not.toContain(KEY.slice(0, 8));
  });

  it("in a body cut by maxErrorBodyBytes, so not JSON: the raw text is redacted too", async () => {
    const head = `{"error":{"param":"echo ${KEY.replace("/", "\\/")}", "pad":"`;
    const body = `${head}${"p".repeat(500)}"}}`;
    const error = await errorFor(statusText(400, body), { maxErrorBodyBytes: head.length + 20 });
    expect(error.providerMessage).toContain("echo [redacted]");
    expect(shown(error)).not.toContain(KEY.slice(0, 8));
  });

  it("cut inside its own `\\/` escape: no part of the key is left", async () => {
    const text = `{"error":{"param":"echo ${KEY.replace("/", "\\/")}"}}`;
    const cut = text.indexOf("\\/") + 1; // the cut falls between `\` and `/`
    const error = await errorFor(statusText(400, text), { maxErrorBodyBytes: cut });
    expect(error.providerMessage).toBe('{"error":{"param":"echo [redacted]');
    expect(shown(error)).not.toContain("sk-t");
  });
});

describe("a cut that two secrets start", () => {
  // The server echoes the gateway token; the cap falls 13 characters into it ("tok_9a8b7c6ds").
  // The longer key starts with "s", the last character before the cut.
  const body = `upstream rejected credential ${TOKEN}`;
  const cut = body.indexOf(TOKEN) + 13;

  for (const secrets of [
    [KEY, TOKEN],
    [TOKEN, KEY],
  ]) {
    it(`redacts the token's whole start (secrets ${secrets.map((s) => s.slice(0, 4)).join(", ")})`, async () => {
      const error = await errorFor(
        { status: 401, headers: { "content-type": "text/plain" }, text: body },
        { maxErrorBodyBytes: cut, secrets },
      );
      expect(error.message).toBe("test: HTTP 401: upstream rejected credential [redacted]");
      expect(shown(error)).not.toContain("tok_");
    });
  }
});

describe("a secret echoed HTML-escaped on an error page", () => {
  const page = (spelled: string) =>
    `<html><head><title>403 Forbidden</title></head><body><p>Key ${spelled} is not allowed.</p></body></html>`;
  const html = (status: number, text: string): MockReply => ({
    status,
    headers: { "content-type": "text/html" },
    text,
  });

  it("with `&#x2F;` and `&#43;` for the key's `/` and `+`: the page is shown, the key redacted", async () => {
    const spelled = KEY.replace("/", "&#x2F;").replace("+", "&#43;");
    const error = await errorFor(html(403, page(spelled)));
    expect(error.providerMessage).toContain("<p>Key [redacted] is not allowed.</p>");
    expect(error.message).not.toContain("sk-test");
  });

  it("cut by maxErrorBodyBytes inside a reference: no part of the key is left", async () => {
    const text = page(KEY.replace("/", "&#x2F;"));
    const cut = text.indexOf("&#x2F;") + 4; // the cut falls inside `&#x2F;`
    const error = await errorFor(html(403, text), { maxErrorBodyBytes: cut });
    expect(error.providerMessage).toMatch(/<p>Key \[redacted\]$/);
    expect(error.message).not.toContain("sk-t");
  });
});

describe("a Basic credential header's decoded parts", () => {
  it("an echoed password or user:password is redacted, not only the base64", async () => {
    const basic = `Basic ${btoa("gateway-user:gw-pass-7f6e5d4c")}`;
    const body = `{"error":{"message":"login gateway-user:gw-pass-7f6e5d4c refused; password gw-pass-7f6e5d4c"}}`;
    const error = await errorFor(statusText(401, body), { secrets: [KEY, basic] });
    expect(error.providerMessage).toBe("login [redacted] refused; password [redacted]");
    expect(shown(error)).not.toContain("gw-pass");
  });
});
