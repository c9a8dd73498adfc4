import { describe, expect, it } from "vitest";
import { jsonCopy } from "./json-data.js";
import { sampleCheckpoint } from "./testing/samples.js";

/** What a JSON round trip gives: the reference the copy must match, value and errors. */
const roundTrip = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

class Point {
  constructor(
    public x: number,
    public y: number,
  ) {}
}

describe("jsonCopy", () => {
  it("copies plain data directly: equal, and sharing no object with the original", () => {
    const checkpoint = sampleCheckpoint({ pending: ["r1", "r2"] });
    const copy = jsonCopy(checkpoint);
    expect(copy).toStrictEqual(roundTrip(checkpoint));
    expect(JSON.stringify(copy)).toBe(JSON.stringify(checkpoint));
    expect(copy).not.toBe(checkpoint);
    expect(copy.messages).not.toBe(checkpoint.messages);
    expect(copy.pending[0]).not.toBe(checkpoint.pending[0]);
    expect(copy.pending[0]!.request).not.toBe(checkpoint.pending[0]!.request);
  });

  it("gives exactly what JSON gives for values a direct copy would get wrong", () => {
    const nullProto = Object.assign(Object.create(null) as object, { a: 1 });
    const withGetter = {
      get computed() {
        return 7;
      },
    };
    const protoKey = JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}') as unknown;
    const values: unknown[] = [
      { when: new Date(0), n: Number.NaN, inf: Number.POSITIVE_INFINITY, neg: -0 },
      { skip: undefined, fn: () => 1, sym: Symbol("s"), keep: "x" },
      [1, undefined, () => 1, Symbol("s")],
      // biome-ignore lint/suspicious/noSparseArray: a hole is what is tested
      [1, , 3],
      { point: new Point(1, 2), map: new Map([["a", 1]]), set: new Set([1]) },
      { boxed: new String("s"), num: new Number(3), bool: new Boolean(false) },
      { custom: { toJSON: () => ({ replaced: true }) } },
      nullProto,
      withGetter,
      protoKey,
      { deep: JSON.parse(`${"[".repeat(100)}1${"]".repeat(100)}`) as unknown },
      "text",
      -0,
      null,
      [],
      {},
    ];
    for (const value of values) {
      expect(jsonCopy(value)).toStrictEqual(roundTrip(value));
    }
    // The prototype is never set from a key: the copy has its own "__proto__" property.
    const copied = jsonCopy(protoKey) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
    expect(Object.hasOwn(copied, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("keeps JSON's key order and leaves out keys an object only inherits", () => {
    const ordered = { b: 1, 2: "two", a: { z: 1, 1: "one" }, 0: null };
    expect(JSON.stringify(jsonCopy(ordered))).toBe(JSON.stringify(ordered));
    // An enumerable key on Object.prototype (a polluted realm) is walked by for-in but is not
    // the object's own: JSON leaves it out, and so must the copy.
    const proto = Object.prototype as Record<string, unknown>;
    proto.inherited = "leak";
    try {
      const copy = jsonCopy({ own: 1, nested: [{ x: 2 }] }) as Record<string, unknown>;
      expect(Object.keys(copy)).toEqual(["own", "nested"]);
      expect(Object.hasOwn(copy, "inherited")).toBe(false);
      expect(copy).toStrictEqual(roundTrip({ own: 1, nested: [{ x: 2 }] }));
    } finally {
      delete proto.inherited;
    }
  });

  it("follows JSON where the shared prototypes were changed (an inherited toJSON, a key, an index)", () => {
    const data = () => ({ list: [1, { x: 2 }], name: "n", toJSON: "data, not a function" });
    const objectProto = Object.prototype as Record<string, unknown>;
    const arrayProto = Array.prototype as unknown as Record<string, unknown>;
    const changes: [Record<string, unknown>, string, unknown][] = [
      [objectProto, "toJSON", () => "replaced"],
      [arrayProto, "toJSON", () => "replaced"],
      [objectProto, "inherited", "leak"],
    ];
    expect(jsonCopy(data())).toStrictEqual(roundTrip(data()));
    for (const [proto, key, value] of changes) {
      Object.defineProperty(proto, key, {
        value,
        enumerable: key !== "toJSON",
        configurable: true,
        writable: true,
      });
      try {
        const expected = roundTrip(data());
        expect(jsonCopy(data())).toStrictEqual(expected);
      } finally {
        delete proto[key];
      }
    }
    // A hole reads what JSON reads: an index Array.prototype was given.
    // biome-ignore lint/suspicious/noSparseArray: a hole is what is tested
    const holed = [1, , 3];
    arrayProto[1] = "from the prototype";
    try {
      expect(jsonCopy(holed)).toStrictEqual(roundTrip(holed));
    } finally {
      delete arrayProto[1];
    }
  });

  it("throws what JSON throws for what JSON cannot copy", () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(() => jsonCopy(cyclic)).toThrow(TypeError);
    expect(() => jsonCopy({ big: 1n })).toThrow(TypeError);
    expect(() => jsonCopy({ big: 1n })).toThrow(
      (() => {
        try {
          JSON.stringify({ big: 1n });
        } catch (thrown) {
          return (thrown as Error).message;
        }
        return "unreachable";
      })(),
    );
    const failing = {
      get broken(): never {
        throw new RangeError("cannot read this");
      },
    };
    expect(() => jsonCopy(failing)).toThrow("cannot read this");
  });
});
