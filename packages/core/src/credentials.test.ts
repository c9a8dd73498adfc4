import { describe, expect, it } from "vitest";
import { credentialParts, isCredentialName } from "./credentials.js";

describe("isCredentialName", () => {
  it("is true for names that say they hold a credential, in any case", () => {
    for (const name of [
      "Authorization",
      "x-api-key",
      "X-Portkey-Api-Key",
      "helicone-auth",
      "x-session-token",
      "api_key",
      "db_pwd",
      "Cookie",
      "x-amz-signature",
      "client_secret",
      "password",
    ]) {
      expect(isCredentialName(name), name).toBe(true);
    }
  });

  it("is false for descriptive names", () => {
    for (const name of ["content-type", "accept", "user-agent", "x-request-id", "page", "q"]) {
      expect(isCredentialName(name), name).toBe(false);
    }
  });
});

describe("credentialParts", () => {
  it("gives the token of a Bearer or token scheme, in any case and spacing", () => {
    expect(credentialParts("Bearer sk-abc123")).toEqual(["sk-abc123"]);
    expect(credentialParts("  bearer   sk-abc123  ")).toEqual(["sk-abc123"]);
    expect(credentialParts("token ghp_0123456789")).toEqual(["ghp_0123456789"]);
  });

  it("gives a Basic credential's base64, its user:password and its password", () => {
    const base64 = btoa("alice:s3cr3t-pässword".replace("ä", "\u00c3\u00a4"));
    expect(credentialParts(`Basic ${base64}`)).toEqual([
      base64,
      "alice:s3cr3t-pässword",
      "s3cr3t-pässword",
    ]);
    // Base64 that decodes to no `user:password`, or is no base64 at all: the token alone.
    expect(credentialParts(`Basic ${btoa("no-colon")}`)).toEqual([btoa("no-colon")]);
    expect(credentialParts("Basic not*base64")).toEqual(["not*base64"]);
  });

  it("is empty for a value with no scheme, or a scheme with no credential", () => {
    expect(credentialParts("sk-abc123")).toEqual([]);
    expect(credentialParts("Bearer")).toEqual([]);
    expect(credentialParts("Bearer   ")).toEqual([]);
    expect(credentialParts("Digest username=x")).toEqual([]);
  });
});
