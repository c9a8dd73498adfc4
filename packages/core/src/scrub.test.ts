import { describe, expect, it } from "vitest";
import { MIN_SECRET_LENGTH, Scrubber } from "./scrub.js";

describe("Scrubber", () => {
  it("replaces each secret, the longest first, and leaves short values alone", () => {
    const scrub = new Scrubber(["sk-live-123", "sk-live-123-extended", "abc"]);
    expect("abc".length).toBeLessThan(MIN_SECRET_LENGTH);
    expect(scrub.text("key sk-live-123-extended and sk-live-123, abc")).toBe(
      "key *** and ***, abc",
    );
    expect(scrub.empty).toBe(false);
    expect(new Scrubber(["ab"]).empty).toBe(true);
  });

  it("scrubs every string of a value, keys included, and keeps other values", () => {
    const scrub = new Scrubber(["hunter22"]);
    const when = new Date(0);
    expect(
      scrub.deep({ list: ["x hunter22", 3], hunter22: true, nested: { when, ok: null } }),
    ).toEqual({ list: ["x ***", 3], "***": true, nested: { when, ok: null } });
  });

  it("scrubs a secret JSON-escaped, and overlapping secrets with no fragment left", () => {
    const scrub = new Scrubber(["tok/abcd-1234", "1234-wxyz"]);
    expect(scrub.text('{"t":"tok\\/abcd-1234","u":"\\u0074ok/abcd-1234"}')).toBe(
      '{"t":"***","u":"***"}',
    );
    expect(scrub.text("tok/abcd-1234-wxyz!")).toBe("***!");
    expect(scrub.deep({ "a\\/b": ["tok\\/abcd-1234"] })).toEqual({ "a\\/b": ["***"] });
  });

  it("scrubs a pathologically deep tree as JSON, escaped secrets too", () => {
    let deep: unknown = 'the "tok/abcd-1234" and tok\\/abcd-1234';
    for (let i = 0; i < 100; i++) deep = { next: deep };
    const json = JSON.stringify(new Scrubber(["tok/abcd-1234"]).deep(deep));
    expect(json).not.toMatch(/abcd/);
    expect(json).toContain('the \\"***\\" and ***');
  });

  it("scrubs a secret percent-encoded, with upper- or lower-case hex", () => {
    const scrubber = new Scrubber(["tok/en+secret"]);
    expect(scrubber.text("a=tok%2Fen%2Bsecret b=tok%2fen%2bsecret")).toBe("a=*** b=***");
  });

  it("leaves text with no secret as it was", () => {
    const text = "plain text, no secret";
    expect(new Scrubber(["hunter22"]).text(text)).toBe(text);
    expect(new Scrubber([]).text("hunter22")).toBe("hunter22");
  });
});
