import { describe, expect, it } from "vitest";
import { Table } from "./table.js";

describe("Table (the memory store's runs and requests by id)", () => {
  it("gets, sets, has and deletes like a Map", () => {
    const table = new Table<{ n: number }>();
    expect(table.get("a")).toBeUndefined();
    expect(table.has("a")).toBe(false);
    table.set("a", { n: 1 });
    table.set("b", { n: 2 });
    expect(table.get("a")).toEqual({ n: 1 });
    expect(table.has("b")).toBe(true);
    expect([...table.values()]).toHaveLength(2);
    expect(table.delete("a")).toBe(true);
    expect(table.delete("a")).toBe(false);
    expect(table.get("a")).toBeUndefined();
    expect(table.has("a")).toBe(false);
    expect([...table.values()]).toEqual([{ n: 2 }]);
  });

  it("keeps insertion order, also for keys a plain object would sort first", () => {
    const table = new Table<string>();
    for (const key of ["run_b", "10", "__proto__", "2", "run_a"]) table.set(key, key);
    expect([...table.values()]).toEqual(["run_b", "10", "__proto__", "2", "run_a"]);
    // Set again: the value changes, the place does not (as in a Map).
    table.set("10", "ten");
    expect([...table.values()]).toEqual(["run_b", "ten", "__proto__", "2", "run_a"]);
    // Deleted and set again: it goes last.
    table.delete("run_b");
    table.set("run_b", "again");
    expect([...table.values()]).toEqual(["ten", "__proto__", "2", "run_a", "again"]);
  });

  it("walks the values with forEach in insertion order, as values() does", () => {
    const table = new Table<string>();
    for (const key of ["b", "1", "a"]) table.set(key, `v${key}`);
    table.delete("b");
    table.set("b", "vb");
    const seen: string[] = [];
    table.forEach((value) => {
      seen.push(value);
    });
    expect(seen).toEqual(["v1", "va", "vb"]);
    expect(seen).toEqual([...table.values()]);
  });

  it("skips a value deleted while the values are walked, as a Map's iterator does", () => {
    const table = new Table<number>();
    for (let i = 0; i < 5; i++) table.set(`k${i}`, i);
    const seen: number[] = [];
    for (const value of table.values()) {
      seen.push(value);
      if (value === 1) table.delete("k3");
    }
    expect(seen).toEqual([0, 1, 2, 4]);
  });
});
