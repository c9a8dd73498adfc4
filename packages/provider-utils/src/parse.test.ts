import { describe, expect, it } from "vitest";
import { ProviderError } from "./errors.js";
import { malformedResponse } from "./parse.js";

describe("malformedResponse", () => {
  it("is a provider_response ProviderError naming the provider and what was missing", () => {
    const error = malformedResponse(
      { provider: "kit", secrets: [] },
      "the response has no choices",
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ code: "provider_response", provider: "kit", retryable: false });
    expect(error.message).toBe("kit: the response has no choices");
  });
});
