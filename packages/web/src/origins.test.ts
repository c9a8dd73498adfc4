import { describe, expect, it } from "vitest";
import { allowedOriginsOf } from "./origins.js";

describe("allowedOriginsOf", () => {
  it("keeps exact origins (a trailing slash is dropped)", () => {
    expect([...allowedOriginsOf(["https://a.example/", "http://127.0.0.1:5173"], "m")]).toEqual([
      "https://a.example",
      "http://127.0.0.1:5173",
    ]);
    expect(allowedOriginsOf(undefined, "m").size).toBe(0);
  });

  it("refuses anything but scheme://host[:port], naming the maker", () => {
    for (const bad of ["a.example", "https://a.example/path", "file:///x", "*"]) {
      expect(() => allowedOriginsOf([bad], "createThing")).toThrow(
        `createThing: allowedOrigins has "${bad}"; give scheme://host[:port] only`,
      );
    }
  });
});
