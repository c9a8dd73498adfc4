import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import {
  BaseUrlCredentialsError,
  MAX_ERROR_FIELD_CHARS,
  MAX_ERROR_MESSAGE_CHARS,
  ProviderError,
} from "./errors.js";

const KEY = "sk-errors-test-4b7c1e9a2d";

/** Every way an error is shown or stored. */
const shown = (error: Error) =>
  [error.message, String(error.stack), JSON.stringify(error), inspect(error, { depth: 8 })].join(
    "\n",
  );

describe("ProviderError", () => {
  it("redacts the secrets from the message, the stack and every provider field", () => {
    const error = new ProviderError("provider_stream", `anthropic: error (${KEY}): bad ${KEY}`, {
      provider: "anthropic",
      providerMessage: `bad ${KEY}`,
      providerType: KEY,
      providerCode: `code_${KEY}`,
      requestId: `req_${KEY}`,
      responseHeaders: { "X-Echo": `Bearer ${KEY}`, "set-cookie": "s=1" },
      secrets: [KEY],
    });
    expect(shown(error)).not.toContain(KEY);
    expect(error.providerType).toBe("[redacted]");
    expect(error.providerCode).toBe("code_[redacted]");
    expect(error.requestId).toBe("req_[redacted]");
    expect(error.responseHeaders).toEqual({ "x-echo": "Bearer [redacted]" });
    expect(error.message).toBe("anthropic: error ([redacted]): bad [redacted]");
  });

  it("redacts before it cuts, so a secret on the cut leaves no part behind", () => {
    const pad = "p".repeat(MAX_ERROR_MESSAGE_CHARS - 5);
    const error = new ProviderError("provider_http", `${pad}${KEY}`, {
      provider: "openai",
      providerMessage: `${pad}${KEY}`,
      providerType: `${"t".repeat(MAX_ERROR_FIELD_CHARS - 3)}${KEY}`,
      secrets: [KEY],
    });
    expect(shown(error)).not.toContain(KEY.slice(0, 4));
    expect(error.message.length).toBe(MAX_ERROR_MESSAGE_CHARS + 1);
    expect(error.providerType?.length).toBe(MAX_ERROR_FIELD_CHARS + 1);
  });

  it("a cause that quotes a secret is replaced by a redacted copy; a clean one is kept", () => {
    const dirty = new TypeError(`fetch failed for ${KEY}`, { cause: new Error(`inner ${KEY}`) });
    const error = new ProviderError("provider_network", "openai: network error", {
      provider: "openai",
      cause: dirty,
      secrets: [KEY],
    });
    expect(shown(error)).not.toContain(KEY);
    expect((error.cause as Error).name).toBe("TypeError");
    expect((error.cause as Error).message).toBe("fetch failed for [redacted]");
    const clean = new Error("ECONNREFUSED");
    const kept = new ProviderError("provider_network", "x", {
      provider: "openai",
      cause: clean,
      secrets: [KEY],
    });
    expect(kept.cause).toBe(clean);
  });

  it("cuts provider text to its caps even without secrets", () => {
    const error = new ProviderError("provider_http", "m".repeat(1_000_000), {
      provider: "openai",
      providerMessage: "m".repeat(1_000_000),
      providerCode: "c".repeat(10_000),
    });
    expect(error.message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_CHARS + 1);
    expect(error.providerMessage?.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_CHARS + 1);
    expect(error.providerCode?.length).toBeLessThanOrEqual(MAX_ERROR_FIELD_CHARS + 1);
  });
});

describe("BaseUrlCredentialsError", () => {
  it("names the setting and shows the URL without its credentials", () => {
    const error = new BaseUrlCredentialsError("openai", "OPENAI_BASE_URL", "http://host/v1");
    expect(error).toMatchObject({ code: "base_url_credentials", setting: "OPENAI_BASE_URL" });
    expect(error.message).toContain("OPENAI_BASE_URL");
    expect(error.message).toContain("apiKey");
  });
});
