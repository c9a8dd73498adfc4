import { describe, expect, it } from "vitest";
import { backoffDelay, MAX_BACKOFF_MS, parseRetryAfter, retryOptions } from "./retry.js";

describe("parseRetryAfter", () => {
  it("reads whole delay-seconds", () => {
    expect(parseRetryAfter("2")).toBe(2000);
    expect(parseRetryAfter(" 10 ")).toBe(10_000);
  });

  it("treats 0 as retry now", () => {
    expect(parseRetryAfter("0")).toBe(0);
  });

  it("rejects every other form so the caller falls back to backoff", () => {
    for (const value of [
      "1.5",
      "-1",
      "+3",
      "1e3",
      "",
      "soon",
      "Wed, 21 Oct 2015 07:28:00 GMT",
      "99999999999999999999",
    ]) {
      expect(parseRetryAfter(value), value).toBeUndefined();
    }
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});

describe("backoffDelay", () => {
  it("doubles each attempt, with the upper half random", () => {
    expect(backoffDelay(0, 500, () => 0)).toBe(250);
    expect(backoffDelay(0, 500, () => 1)).toBe(500);
    expect(backoffDelay(1, 500, () => 0)).toBe(500);
    expect(backoffDelay(1, 500, () => 1)).toBe(1000);
    expect(backoffDelay(2, 500, () => 0.5)).toBe(1500);
  });

  it("is capped", () => {
    expect(backoffDelay(30, 500, () => 1)).toBe(MAX_BACKOFF_MS);
  });

  it("jitters between the bounds with the real random source", () => {
    for (let i = 0; i < 50; i++) {
      const delay = backoffDelay(3, 100);
      expect(delay).toBeGreaterThanOrEqual(400);
      expect(delay).toBeLessThanOrEqual(800);
    }
  });
});

describe("retryOptions", () => {
  it("fills in the defaults", () => {
    expect(retryOptions("x", {})).toEqual({
      retries: 2,
      retryBaseMs: 500,
      maxRetryDelayMs: 60_000,
    });
    expect(retryOptions("x", { retries: 0, retryBaseMs: 5, maxRetryDelayMs: 10 })).toEqual({
      retries: 0,
      retryBaseMs: 5,
      maxRetryDelayMs: 10,
    });
  });

  it("names a bad option", () => {
    expect(() => retryOptions("openai", { retries: -1 })).toThrow(/openai: retries/);
    expect(() => retryOptions("openai", { retries: 1.5 })).toThrow(/retries/);
    expect(() => retryOptions("openai", { retryBaseMs: Number.NaN })).toThrow(/retryBaseMs/);
    expect(() => retryOptions("openai", { maxRetryDelayMs: -1 })).toThrow(/maxRetryDelayMs/);
  });
});
