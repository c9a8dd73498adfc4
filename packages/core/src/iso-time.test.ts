import { describe, expect, it } from "vitest";
import { isoTime } from "./iso-time.js";

const iso = (ms: number) => new Date(ms).toISOString();

describe("isoTime", () => {
  it("gives toISOString's text at the edges of days, months, leap years and centuries", () => {
    const edges = [
      0,
      -1,
      1,
      Date.UTC(1969, 11, 31, 23, 59, 59, 999),
      Date.UTC(2000, 1, 29, 12, 0, 0, 5),
      Date.UTC(1900, 1, 28, 23, 59, 59, 999),
      Date.UTC(1900, 2, 1),
      Date.UTC(2100, 1, 28),
      Date.UTC(2024, 1, 29),
      Date.UTC(2026, 11, 31, 23, 59, 59, 999),
      Date.UTC(2027, 0, 1),
      Date.UTC(1600, 1, 29, 0, 0, 0, 1),
      -62_167_219_200_000, // 0000-01-01
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      new Date(0).setUTCFullYear(5, 6, 7), // year 0005: four digits
      new Date(0).setUTCFullYear(987, 0, 1),
    ];
    for (const ms of edges) expect(isoTime(ms)).toBe(iso(ms));
  });

  it("gives toISOString's text for 200,000 times spread over years 0000 to 9999", () => {
    // A fixed sequence (a linear congruential generator), so a failure reproduces.
    let seed = 12_345;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const first = -62_167_219_200_000;
    const span = 253_402_300_799_999 - first;
    for (let i = 0; i < 200_000; i++) {
      const ms = first + Math.floor(next() * span);
      if (isoTime(ms) !== iso(ms)) expect(isoTime(ms)).toBe(iso(ms));
    }
  });

  it("leaves years outside 0000–9999 and fractions to Date, with its text or its RangeError", () => {
    for (const ms of [-62_167_219_200_001, 253_402_300_800_000, 8.64e15, -8.64e15, 1.5]) {
      expect(isoTime(ms)).toBe(iso(ms));
    }
    for (const ms of [Number.NaN, 8.64e15 + 1, Number.POSITIVE_INFINITY]) {
      expect(() => isoTime(ms)).toThrow(RangeError);
    }
  });
});
