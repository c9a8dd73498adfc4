import { describe, expect, it } from "vitest";
import { authRequired, isPending, pending, pendingOf } from "./pending.js";
import { error, isToolResult, ok } from "./result.js";
import { sanitize } from "./tool.js";

describe("pending()", () => {
  it("is an error-flagged result whose output is the prompt and metadata.pending the Request", () => {
    const result = pending({ kind: "input", prompt: "Which environment?" });
    expect(result.isError).toBe(true);
    expect(result.output).toBe("Which environment?");
    expect(isPending(result)).toBe(true);
    const request = pendingOf(result);
    expect(request?.kind).toBe("input");
    expect(request?.prompt).toBe("Which environment?");
    expect(request?.id).toMatch(/^pnd_[0-9a-f]{32}$/);
    expect(Object.keys(request ?? {})).toEqual(["id", "kind", "prompt"]);
  });

  it("puts the url on its own line and normalises expiresAt to ISO", () => {
    const result = pending({
      kind: "authorization",
      prompt: "Log in to GitHub",
      url: "https://github.test/login",
      expiresAt: Date.UTC(2026, 11, 2, 15, 0, 0),
      id: "fixed",
    });
    expect(result.output).toBe("Log in to GitHub\nhttps://github.test/login");
    expect(pendingOf(result)).toEqual({
      id: "fixed",
      kind: "authorization",
      prompt: "Log in to GitHub",
      url: "https://github.test/login",
      expiresAt: "2026-12-02T15:00:00.000Z",
    });
  });

  it("refuses an invalid expiresAt with a clear message", () => {
    expect(() => pending({ kind: "input", prompt: "p", expiresAt: "tomorrow-ish" })).toThrow(
      'pending(): "expiresAt" is not a valid date: tomorrow-ish',
    );
  });

  it("makes 100,000 distinct, unguessable ids", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 100_000; i++) {
      seen.add(pendingOf(pending({ kind: "question", prompt: "?" }))!.id);
    }
    expect(seen.size).toBe(100_000);
    // 32 hex digits: 128 random bits from the platform CSPRNG.
    for (const id of [...seen].slice(0, 100)) expect(id).toMatch(/^pnd_[0-9a-f]{32}$/);
  });

  it("authRequired is an authorization suspension carrying the url", () => {
    const result = authRequired("https://auth.test/consent");
    expect(pendingOf(result)).toMatchObject({
      kind: "authorization",
      url: "https://auth.test/consent",
    });
    expect(result.output).toBe("Authorization required\nhttps://auth.test/consent");
    expect(authRequired("https://a.test", "Sign in to Drive").output).toBe(
      "Sign in to Drive\nhttps://a.test",
    );
  });

  it("pendingOf is undefined for ordinary results and malformed metadata", () => {
    expect(pendingOf(ok("fine"))).toBeUndefined();
    expect(pendingOf(error("bad"))).toBeUndefined();
    expect(pendingOf(error("bad", { pending: "yes" }))).toBeUndefined();
    expect(
      pendingOf(error("bad", { pending: { id: 1, kind: "input", prompt: "?" } })),
    ).toBeUndefined();
    expect(isPending(undefined)).toBe(false);
  });
});

describe("results and names", () => {
  it("ok and error build results, with metadata only when given", () => {
    expect(ok("5")).toEqual({ output: "5", isError: false });
    expect(error("nope", { code: 4 })).toEqual({
      output: "nope",
      isError: true,
      metadata: { code: 4 },
    });
    expect("metadata" in ok("x")).toBe(false);
  });

  it("isToolResult recognises the shape", () => {
    expect(isToolResult(ok("x"))).toBe(true);
    expect(isToolResult({ output: "x" })).toBe(false);
    expect(isToolResult({ output: 1, isError: false })).toBe(false);
    expect(isToolResult({ output: "x", isError: false, metadata: 3 })).toBe(false);
    expect(isToolResult(null)).toBe(false);
  });

  it("sanitize replaces every character outside [a-zA-Z0-9_-]", () => {
    expect(sanitize("github.search issues/v2")).toBe("github_search_issues_v2");
    expect(sanitize("ok_name-1")).toBe("ok_name-1");
    expect(sanitize("día")).toBe("d_a");
  });
});
