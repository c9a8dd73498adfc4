import { describe, expect, it } from "vitest";
import { jsonCopy, jsonText, sameJson } from "./json-data.js";

const texts = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Values for both JSON checks: plain data, and what JSON's own rules decide (toJSON, classes…). */
function samples(): unknown[] {
  class Point {
    constructor(readonly x: number) {}
  }
  const date = new Date(0);
  return [
    null,
    true,
    false,
    0,
    -0,
    1,
    1.5,
    -2e-7,
    1e21,
    Number.NaN,
    Infinity,
    -Infinity,
    "",
    "a",
    "1",
    "null",
    "true",
    'q"',
    "b\\s",
    "\n",
    "\u0000",
    "é",
    "\u{1F600}",
    "\ud800",
    undefined,
    () => 1,
    Symbol("s"),
    [],
    [1],
    [1, 2],
    [2, 1],
    [undefined],
    [null],
    [undefined, () => 1],
    [null, 1],
    // biome-ignore lint/suspicious/noSparseArray: a hole is written as null
    [, 1],
    {},
    { a: 1 },
    { a: 1, b: 2 },
    { b: 2, a: 1 },
    { a: undefined },
    { a: undefined, b: 2 },
    { b: 2 },
    { a: [1, { c: "x" }] },
    { a: [1, { c: "y" }] },
    { a: Number.NaN },
    { a: null },
    { 'k"ey': 1 },
    { "\u0007": 1 },
    { nested: { deep: [{ x: [true] }] } },
    { toJSON: () => "a" },
    new Point(1),
    { x: 1 },
    date,
    date.toISOString(),
    Object.create(null),
    Object.assign(Object.create(null), { a: 1 }),
    { 2: "x", 1: "y" },
    { 1: "y", 2: "x" },
  ];
}

describe("sameJson", () => {
  it("answers as comparing the two JSON texts would, for plain data and for JSON's own rules", () => {
    const values = samples();
    for (const a of values) {
      for (const b of values) expect([a, b, sameJson(a, b)]).toEqual([a, b, texts(a, b)]);
    }
  });

  it("compares deep values, and throws as JSON does for one it cannot write", () => {
    const deep = (n: number, leaf: unknown): unknown =>
      n === 0 ? leaf : { d: [deep(n - 1, leaf)] };
    expect(sameJson(deep(100, 1), deep(100, 1))).toBe(true);
    expect(sameJson(deep(100, 1), deep(100, 2))).toBe(false);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => sameJson(cycle, {})).toThrow(TypeError);
    expect(() => sameJson({ n: 1n }, { n: 1 })).toThrow(TypeError);
  });

  it("follows JSON when Object.prototype has a toJSON", () => {
    const proto = Object.prototype as { toJSON?: () => string };
    proto.toJSON = () => "same";
    try {
      expect(sameJson({ a: 1 }, { b: 2 })).toBe(true);
    } finally {
      delete proto.toJSON;
    }
    expect(sameJson({ a: 1 }, { b: 2 })).toBe(false);
  });
});

describe("jsonCopy of a parsed value (the codec's use)", () => {
  it("gives what a JSON round trip gives for a parsed value, sharing nothing with it", () => {
    const text = '{"a":[1,{"b":null,"c":"x"},[]],"2":true,"1":{"d":-0.5}}';
    const value = JSON.parse(text) as { a: unknown[] };
    const copy = jsonCopy(value);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(value));
    expect(copy).toEqual(value);
    expect(copy).not.toBe(value);
    expect(copy.a).not.toBe(value.a);
    expect(copy.a[1]).not.toBe(value.a[1]);
  });

  it("keeps a key named __proto__ as a key, not as the copy's prototype", () => {
    const value = JSON.parse('{"x":{"__proto__":{"polluted":true}}}') as { x: object };
    const copy = jsonCopy(value);
    expect(Object.getPrototypeOf(copy.x)).toBe(Object.prototype);
    expect(Object.keys(copy.x)).toEqual(["__proto__"]);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it("copies primitives and deep values", () => {
    for (const value of [null, 1, "s", true]) expect(jsonCopy(value)).toBe(value);
    const deep = JSON.parse(`${"[".repeat(100)}1${"]".repeat(100)}`);
    expect(JSON.stringify(jsonCopy(deep))).toBe(JSON.stringify(deep));
  });
});

describe("jsonText", () => {
  it("writes what JSON.stringify writes, for plain data and for what JSON decides itself", () => {
    const values = [
      ...samples(),
      { long: "x".repeat(5_000) },
      Array.from({ length: 600 }, (_, i) => i),
    ];
    for (const value of values)
      expect([value, jsonText(value)]).toEqual([value, JSON.stringify(value)]);
  });

  it("throws as JSON.stringify does for what it cannot write", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => jsonText(cycle)).toThrow(TypeError);
    expect(() => jsonText({ n: 1n })).toThrow(TypeError);
  });

  it("follows JSON when Object.prototype has an enumerable key", () => {
    const proto = Object.prototype as { extra?: number };
    Object.defineProperty(proto, "extra", {
      value: 1,
      enumerable: true,
      configurable: true,
      writable: true,
    });
    try {
      expect(jsonText({ a: 1 })).toBe(JSON.stringify({ a: 1 }));
    } finally {
      delete proto.extra;
    }
  });
});
