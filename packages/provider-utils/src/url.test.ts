import { afterEach, describe, expect, it } from "vitest";
import { credentialValues, hasCredentialHeader, redact } from "./redact.js";
import { checkBaseUrl, isLoopbackUrl, joinUrl, readEnv, urlPath } from "./url.js";

describe("joinUrl", () => {
  it("joins with exactly one slash", () => {
    expect(joinUrl("https://api.openai.com/v1", "chat/completions")).toBe(
      "https://api.openai.com/v1/chat/completions",
    );
    expect(joinUrl("https://api.openai.com/v1/", "/chat/completions")).toBe(
      "https://api.openai.com/v1/chat/completions",
    );
    expect(joinUrl("http://127.0.0.1:11434", "v1/messages")).toBe(
      "http://127.0.0.1:11434/v1/messages",
    );
  });

  it("keeps a query string", () => {
    expect(
      joinUrl("https://x.example/openai/deployments/d?api-version=2024-10-21", "chat/completions"),
    ).toBe("https://x.example/openai/deployments/d/chat/completions?api-version=2024-10-21");
  });

  it("urlPath gives the path without trailing slashes", () => {
    expect(urlPath("https://api.anthropic.com")).toBe("");
    expect(urlPath("https://api.anthropic.com/v1/")).toBe("/v1");
  });
});

describe("isLoopbackUrl", () => {
  it("knows the loopback hosts", () => {
    for (const url of [
      "http://localhost:11434/v1",
      "http://127.0.0.1:8000",
      "http://127.1.2.3",
      "http://[::1]:8080/v1",
      "http://0.0.0.0:8000",
      "http://ollama.localhost",
    ]) {
      expect(isLoopbackUrl(url), url).toBe(true);
    }
  });

  it("anything else is remote", () => {
    for (const url of [
      "https://api.openai.com/v1",
      "http://192.168.1.10:11434",
      "http://localhost.example.com",
      "not a url",
    ]) {
      expect(isLoopbackUrl(url), url).toBe(false);
    }
  });
});

describe("readEnv", () => {
  afterEach(() => {
    delete process.env.TOOLNEXUS_TEST_VAR;
  });

  it("reads a set variable and treats empty as unset", () => {
    process.env.TOOLNEXUS_TEST_VAR = " value ";
    expect(readEnv("TOOLNEXUS_TEST_VAR")).toBe("value");
    process.env.TOOLNEXUS_TEST_VAR = "  ";
    expect(readEnv("TOOLNEXUS_TEST_VAR")).toBeUndefined();
    delete process.env.TOOLNEXUS_TEST_VAR;
    expect(readEnv("TOOLNEXUS_TEST_VAR")).toBeUndefined();
  });
});

describe("redact", () => {
  it("replaces every occurrence of every secret, including a bearer token", () => {
    const text = "key sk-secret-123 and again sk-secret-123; header Bearer tok-abcdef";
    expect(redact(text, ["sk-secret-123", "Bearer tok-abcdef"])).toBe(
      "key [redacted] and again [redacted]; header [redacted]",
    );
  });

  it("ignores tiny secrets", () => {
    expect(redact("a b c", ["a"])).toBe("a b c");
  });

  it("hides the bare token of a Bearer secret", () => {
    expect(redact("token tok-abcdef leaked", ["Bearer tok-abcdef"])).toBe(
      "token [redacted] leaked",
    );
  });

  it("finds credential headers case-insensitively", () => {
    const headers = { Authorization: "Bearer x-1234", "X-Api-Key": "k-5678", accept: "json" };
    expect(credentialValues(headers)).toEqual(["Bearer x-1234", "k-5678"]);
    expect(hasCredentialHeader(headers)).toBe(true);
    expect(hasCredentialHeader({ "api-key": "azure" })).toBe(true);
    expect(hasCredentialHeader({ accept: "json", "api-key": " " })).toBe(false);
  });
});

describe("checkBaseUrl", () => {
  it("accepts absolute http and https URLs", () => {
    expect(checkBaseUrl("openai", "baseUrl", "http://localhost:8787/v1")).toBe(
      "http://localhost:8787/v1",
    );
    expect(checkBaseUrl("openai", "baseUrl", " https://x.example/v1?a=1 ")).toBe(
      "https://x.example/v1?a=1",
    );
  });

  it("refuses a URL without a scheme, saying what to write", () => {
    expect(() => checkBaseUrl("openai", "baseUrl", "localhost:8787/v1")).toThrow(
      'openai: "baseUrl" must be an absolute URL starting with http:// or https://, e.g. "http://localhost:8787/v1"; got "localhost:8787/v1"',
    );
    expect(() => checkBaseUrl("openai", "baseUrl", "127.0.0.1:11434")).toThrow(
      /e\.g\. "http:\/\/127\.0\.0\.1:11434"/,
    );
    expect(() => checkBaseUrl("anthropic", "ANTHROPIC_BASE_URL", "api.example.com/v1")).toThrow(
      /"ANTHROPIC_BASE_URL" must be .* e\.g\. "https:\/\/api\.example\.com\/v1"/,
    );
  });

  it("refuses other schemes and non-URLs", () => {
    expect(() => checkBaseUrl("openai", "baseUrl", "ws://x.example")).toThrow(
      /e\.g\. "https:\/\/x\.example"/,
    );
    expect(() => checkBaseUrl("openai", "baseUrl", "not a url")).toThrow(
      /must be an absolute URL starting with http:\/\/ or https:\/\/; got "not a url"/,
    );
    expect(() => checkBaseUrl("openai", "baseUrl", 42)).toThrow(TypeError);
  });
});

describe("credentials in a base URL", () => {
  const forms = [
    "http://kit-user:kit-pass-2f9a@127.0.0.1:8080/v1",
    "https://kit-pass-2f9a@api.example.com/v1",
    "kit-user:kit-pass-2f9a@localhost:8787/v1",
    "http:kit-user:kit-pass-2f9a@localhost/v1",
  ];
  for (const form of forms) {
    it(`refuses ${form.replace("kit-pass-2f9a", "<password>")} without echoing it`, async () => {
      const { BaseUrlCredentialsError } = await import("./errors.js");
      const thrown = (() => {
        try {
          checkBaseUrl("openai", "OPENAI_BASE_URL", form);
        } catch (error) {
          return error as Error;
        }
        return undefined;
      })();
      expect(thrown).toBeInstanceOf(BaseUrlCredentialsError);
      expect(`${thrown?.message} ${thrown?.stack}`).not.toContain("kit-pass-2f9a");
      expect(thrown?.message).not.toContain("kit-user");
      expect(thrown?.message).toContain("OPENAI_BASE_URL");
    });
  }

  it("an @ after the host (in the path or query) is fine", () => {
    expect(checkBaseUrl("x", "baseUrl", "https://host/v1/@team?x=a@b")).toBe(
      "https://host/v1/@team?x=a@b",
    );
  });
});

describe("credentialValues", () => {
  it("takes any header whose name says it holds a secret", () => {
    expect(
      credentialValues({
        "x-portkey-api-key": "a1",
        "Helicone-Auth": "a2",
        "x-session-token": "a3",
        "anthropic-beta": "tools",
      }),
    ).toEqual(["a1", "a2", "a3"]);
  });
});

describe("redactCut", () => {
  it("redacts the start of a secret left at the end of a cut text", async () => {
    const { redactCut } = await import("./redact.js");
    expect(redactCut("body sk-abcdef", ["sk-abcdefghijk"])).toBe("body [redacted]");
    expect(redactCut("body sk-abcdefghijk tail", ["sk-abcdefghijk"])).toBe("body [redacted] tail");
    expect(redactCut("body", ["sk-abcdefghijk"])).toBe("body");
  });
});
