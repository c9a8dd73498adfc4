import { describe, expect, it } from "vitest";
import { parseDuration, shortAge } from "./durations.js";

describe("parseDuration", () => {
  it("reads ages in ms, s, m, h, d, w and their sums", () => {
    expect(parseDuration("500ms", "--x")).toBe(500);
    expect(parseDuration("90s", "--x")).toBe(90_000);
    expect(parseDuration("15m", "--x")).toBe(900_000);
    expect(parseDuration("2h", "--x")).toBe(7_200_000);
    expect(parseDuration("30d", "--x")).toBe(30 * 86_400_000);
    expect(parseDuration("1w", "--x")).toBe(604_800_000);
    expect(parseDuration("1d12h", "--x")).toBe(36 * 3_600_000);
    expect(parseDuration("1.5h", "--x")).toBe(5_400_000);
    expect(parseDuration("0s", "--x")).toBe(0);
  });

  it("refuses anything else with a usage error naming the option", () => {
    for (const bad of ["", "2", "h", "2 hours", "-1d", "2h junk", "1e3s", "11000d"]) {
      expect(() => parseDuration(bad, "--older-than")).toThrow(/--older-than takes an age like/);
    }
    try {
      parseDuration("soon", "--older-than");
    } catch (error) {
      expect(error).toMatchObject({ exitCode: 2, code: "usage" });
    }
  });
});

describe("shortAge", () => {
  it("gives the largest whole unit", () => {
    expect([45_000, 12 * 60_000, 3 * 3_600_000, 2 * 86_400_000].map(shortAge)).toEqual([
      "45s",
      "12m",
      "3h",
      "2d",
    ]);
  });
});
