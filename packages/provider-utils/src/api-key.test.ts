import { afterEach, describe, expect, it, vi } from "vitest";
import { resolveApiKey } from "./api-key.js";
import { MissingApiKeyError } from "./errors.js";

const base = {
  provider: "kit",
  given: undefined,
  env: ["KIT_FIRST_KEY", "KIT_SECOND_KEY"],
  headers: {},
  baseUrl: "https://api.kit.example",
};

describe("resolveApiKey", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("the given key wins; an empty one counts as none", () => {
    vi.stubEnv("KIT_FIRST_KEY", "from-env");
    expect(resolveApiKey({ ...base, given: "given" })).toBe("given");
    expect(resolveApiKey({ ...base, given: "" })).toBe("from-env");
  });

  it("reads the variables in order at each call, trimmed", () => {
    vi.stubEnv("KIT_SECOND_KEY", " second ");
    expect(resolveApiKey(base)).toBe("second");
    vi.stubEnv("KIT_FIRST_KEY", "first");
    expect(resolveApiKey(base)).toBe("first");
  });

  it("the caller's own credential header, or the provider's key header, means no key", () => {
    vi.stubEnv("KIT_FIRST_KEY", "from-env");
    expect(resolveApiKey({ ...base, headers: { Authorization: "Bearer gw" } })).toBeUndefined();
    expect(resolveApiKey({ ...base, headers: { "api-key": "azure" } })).toBeUndefined();
    const own = { ...base, headers: { "x-goog-api-key": "mine" }, keyHeaders: ["x-goog-api-key"] };
    expect(resolveApiKey(own)).toBeUndefined();
    // Without keyHeaders that header is someone else's; a blank value is no credential.
    expect(resolveApiKey({ ...own, keyHeaders: undefined })).toBe("from-env");
    expect(resolveApiKey({ ...base, headers: { authorization: " " } })).toBe("from-env");
  });

  it("a loopback base URL needs none; elsewhere a MissingApiKeyError names the variables", () => {
    for (const baseUrl of [
      "http://127.0.0.1:8080",
      "http://localhost:11434/v1",
      "http://[::1]:1",
    ]) {
      expect(resolveApiKey({ ...base, baseUrl })).toBeUndefined();
    }
    let error: unknown;
    try {
      resolveApiKey(base);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(MissingApiKeyError);
    expect(error).toMatchObject({
      code: "missing_api_key",
      provider: "kit",
      variables: ["KIT_FIRST_KEY", "KIT_SECOND_KEY"],
    });
    expect((error as Error).message).toContain("KIT_FIRST_KEY or KIT_SECOND_KEY");
  });
});
