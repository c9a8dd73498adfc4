// The `auth` field of a remote server's entry, as parseMcpConfig reads it.
import { describe, expect, it } from "vitest";
import { parseMcpConfig } from "./config.js";

// `${NAME}` is the config's own placeholder syntax, not a template literal.
const placeholder = (name: string) => ["$", "{", name, "}"].join("");

const remote = (auth: unknown) =>
  parseMcpConfig(
    { mcpServers: { s: { url: "https://x.test/mcp", auth } } },
    { SECRET: "from-the-environment-1234" },
  )[0];

describe("auth in a remote entry", () => {
  it("is absent, on, off, or settings with the secret expanded and scrubbed", () => {
    expect(remote(undefined)).not.toHaveProperty("auth");
    expect(remote(true)).toMatchObject({ kind: "remote", auth: {} });
    expect(remote(false)).toMatchObject({ kind: "remote", auth: false });
    const spec = remote({
      grant: "client_credentials",
      clientId: "machine",
      clientSecret: placeholder("SECRET"),
      scope: "read write",
    });
    expect(spec).toMatchObject({
      kind: "remote",
      auth: {
        grant: "client_credentials",
        clientId: "machine",
        clientSecret: "from-the-environment-1234",
        scope: "read write",
      },
    });
    expect(spec?.kind === "remote" && spec.secrets).toContain("from-the-environment-1234");
  });

  it("takes a private key instead of a secret, and DPoP", () => {
    const spec = remote({
      grant: "client_credentials",
      clientId: "machine",
      privateKey: placeholder("SECRET"),
      signingAlgorithm: "ES256",
      dpop: true,
    });
    expect(spec).toMatchObject({
      kind: "remote",
      auth: { privateKey: "from-the-environment-1234", signingAlgorithm: "ES256", dpop: true },
    });
    expect(spec?.kind === "remote" && spec.secrets).toContain("from-the-environment-1234");
    expect(remote({ dpop: "yes" })).toMatchObject({
      kind: "invalid",
      reason: '"auth.dpop" must be true or false',
    });
  });

  it("takes a workload's JWT for the jwt_bearer grant, as a secret", () => {
    const spec = remote({
      grant: "jwt_bearer",
      clientId: "workload",
      assertion: placeholder("SECRET"),
    });
    expect(spec).toMatchObject({
      kind: "remote",
      auth: { grant: "jwt_bearer", assertion: "from-the-environment-1234" },
    });
    expect(spec?.kind === "remote" && spec.secrets).toContain("from-the-environment-1234");
  });

  it("makes a malformed entry invalid, saying why", () => {
    expect(remote("yes")).toMatchObject({
      kind: "invalid",
      reason: '"auth" must be true, false or an object',
    });
    expect(remote({ grant: "password" })).toMatchObject({ kind: "invalid" });
    expect(remote({ clientId: 3 })).toMatchObject({
      kind: "invalid",
      reason: '"auth.clientId" must be a non-empty string',
    });
    expect(remote({ grant: "client_credentials", clientId: "m" })).toMatchObject({
      kind: "invalid",
      reason:
        'the "client_credentials" grant needs "auth.clientId" and "auth.clientSecret" or "auth.privateKey"',
    });
  });
});
