import { describe, expect, it } from "vitest";
import { fingerprint } from "./fingerprint.js";

// The reference: 64-bit FNV-1a with BigInt, as checkpoints written so far were fingerprinted.
function reference(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    hash ^= BigInt(text.charCodeAt(i));
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, "0");
}

describe("fingerprint()", () => {
  it("is the 64-bit FNV-1a of the name and the canonical JSON, digit for digit", () => {
    expect(fingerprint("add", { b: 3, a: 2 })).toBe(reference('add\u0000{"a":2,"b":3}'));
    expect(fingerprint("", {})).toBe(reference("\u0000{}"));
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed;
    };
    for (let n = 0; n < 300; n++) {
      const text = Array.from({ length: random() % 40 }, () =>
        String.fromCharCode(random() % 3 === 0 ? random() % 0xffff : 32 + (random() % 95)),
      ).join("");
      expect(fingerprint("t", { text, n })).toBe(
        reference(`t\u0000{"n":${n},"text":${JSON.stringify(text)}}`),
      );
    }
  });

  it("writes numbers, strings and other values as JSON.stringify does", () => {
    const values = [
      0,
      -0,
      1.5,
      -2e-7,
      1e21,
      123456789012345680000,
      Number.NaN,
      Infinity,
      true,
      false,
      null,
      "",
      "plain",
      'q"uote',
      "back\\slash",
      "tab\t",
      "\u0000",
      "\u001f",
      "é",
      "\u{1F600}",
      "\ud800",
      "x\udfff",
    ];
    for (const value of values) {
      expect(fingerprint("t", { value })).toBe(
        reference(`t\u0000{"value":${JSON.stringify(value) ?? "null"}}`),
      );
    }
  });

  it("hashes the canonical JSON of nested arrays and objects (undefined in an array is null)", () => {
    expect(fingerprint("t", { d: {}, a: [1, undefined, { c: undefined, b: null }, []] })).toBe(
      reference('t\u0000{"a":[1,null,{"b":null},[]],"d":{}}'),
    );
  });

  it("orders keys as sort() does, for few keys and for many", () => {
    for (const size of [2, 3, 8, 9, 20]) {
      const keys = Array.from({ length: size }, (_, i) => `k${(i * 7919) % 101}\u{1F600}${i % 3}`);
      keys.push("B", "a", "é", "\uFFFD");
      const args = Object.fromEntries(keys.map((key, i) => [key, i]));
      const canonical = `{${[...keys]
        .sort()
        .map((key) => `${JSON.stringify(key)}:${args[key]}`)
        .join(",")}}`;
      expect(fingerprint("t", args)).toBe(reference(`t\u0000${canonical}`));
    }
  });

  it("ignores key order and undefined values", () => {
    expect(fingerprint("deploy", { env: "prod", force: undefined, n: [1, { z: 1, y: 2 }] })).toBe(
      fingerprint("deploy", { n: [1, { y: 2, z: 1 }], env: "prod" }),
    );
  });
});
