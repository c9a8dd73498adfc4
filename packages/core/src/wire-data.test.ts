import { describe, expect, it } from "vitest";
import { WireFormatError } from "./errors.js";
import { AnswerSchema, parseAnswer, parseRequest } from "./wire.js";
import { copyWireData, MAX_WIRE_DEPTH } from "./wire-data.js";

function refusal(fn: () => unknown): WireFormatError {
  try {
    fn();
  } catch (thrown) {
    expect(thrown).toBeInstanceOf(WireFormatError);
    return thrown as WireFormatError;
  }
  throw new Error("expected a WireFormatError");
}

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

describe("answer data that is not JSON", () => {
  it("refuses 5,000-deep data, from a value and from JSON text, naming the depth limit", () => {
    const data = nested(5000);
    // JSON.stringify itself overflows on this nest: the text is built by hand.
    const text = `{"id":"a","ok":true,"data":${'{"a":'.repeat(5000)}{"leaf":true}${"}".repeat(5000)}}`;
    for (const input of [{ id: "a", ok: true, data }, text]) {
      const err = refusal(() => parseAnswer(input));
      expect(err.code).toBe("wire_format");
      expect(err.field).toBe("data");
      expect(err.message).toContain(`nested deeper than ${MAX_WIRE_DEPTH} levels`);
      expect(err.path).toBe(`data${".a".repeat(MAX_WIRE_DEPTH)}`);
    }
  });

  it("accepts data exactly at the depth limit", () => {
    // The data object itself is level 1; MAX_WIRE_DEPTH - 1 more objects fit inside it.
    const answer = parseAnswer({ id: "a", ok: true, data: nested(MAX_WIRE_DEPTH - 1) });
    expect(JSON.parse(JSON.stringify(answer))).toEqual(answer);
  });

  it("refuses a cycle with the path where it closes", () => {
    const data: Record<string, unknown> = { list: [{ name: "x" }] };
    (data.list as Record<string, unknown>[])[0]!.back = data;
    const err = refusal(() => parseAnswer({ id: "a", ok: true, data }));
    expect(err.path).toBe("data.list[0].back");
    expect(err.message).toBe('invalid Answer: "data.list[0].back" refers back to itself (a cycle)');
  });

  it("accepts the same object twice when it is not a cycle", () => {
    const shared = { n: 1 };
    expect(parseAnswer({ id: "a", ok: true, data: { x: shared, y: shared } }).data).toEqual({
      x: { n: 1 },
      y: { n: 1 },
    });
  });

  it("refuses BigInt, Symbol, function, NaN and Infinity values by path", () => {
    const cases: [unknown, string][] = [
      [10n, "is a BigInt"],
      [Symbol("s"), "is a Symbol"],
      [() => 1, "is a function"],
      [Number.NaN, "is NaN"],
      [Number.POSITIVE_INFINITY, "is Infinity"],
    ];
    for (const [bad, says] of cases) {
      const err = refusal(() => parseAnswer({ id: "a", ok: true, data: { amount: [1, bad] } }));
      expect(err.path).toBe("data.amount[1]");
      expect(err.message).toContain(`"data.amount[1]" ${says}`);
    }
  });

  it("refuses a getter that throws, in the data or on the answer itself, without rethrowing", () => {
    const data = {
      get secret(): string {
        throw new Error("boom");
      },
    };
    const err = refusal(() => parseAnswer({ id: "a", ok: true, data }));
    expect(err.path).toBe("data.secret");
    expect(err.message).toContain("could not be read (boom)");
    const answer = {
      id: "a",
      get ok(): boolean {
        throw new RangeError("no");
      },
    };
    expect(refusal(() => parseAnswer(answer)).field).toBe("ok");
    const trap = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error("trap");
        },
        ownKeys() {
          throw new Error("trap");
        },
        get() {
          throw new Error("trap");
        },
      },
    );
    expect(refusal(() => parseAnswer(trap)).code).toBe("wire_format");
    expect(refusal(() => parseAnswer({ id: "a", ok: true, data: { p: trap } })).path).toBe(
      "data.p",
    );
  });

  it("reads each getter once: the answer holds what was checked", () => {
    let reads = 0;
    const data = {
      get env(): unknown {
        reads++;
        return reads === 1 ? "staging" : 10n;
      },
    };
    const answer = parseAnswer({ id: "a", ok: true, data });
    expect(reads).toBe(1);
    expect(answer.data).toEqual({ env: "staging" });
    expect(JSON.stringify(answer)).toBe('{"id":"a","ok":true,"data":{"env":"staging"}}');
  });

  it("quotes keys that are not identifiers in the path", () => {
    const err = refusal(() => parseAnswer({ id: "a", ok: true, data: { "my key": [0n] } }));
    expect(err.path).toBe('data["my key"][0]');
  });

  it("applies to Request data and to the schemas too", () => {
    const err = refusal(() =>
      parseRequest({ id: "r", kind: "input", prompt: "p", data: { schema: { max: 1n } } }),
    );
    expect(err.path).toBe("data.schema.max");
    const result = AnswerSchema.safeParse({ id: "a", ok: true, data: nested(200) });
    expect(result.success).toBe(false);
    if (!result.success) expect(result.error).toBeInstanceOf(WireFormatError);
  });
});

describe("copyWireData", () => {
  it("copies plain JSON, dropping undefined properties and keeping __proto__ as a plain key", () => {
    const source = JSON.parse('{"a":[1,"x",null,true],"__proto__":{"polluted":1},"u":null}');
    source.gone = undefined;
    const copied = copyWireData(source, "v");
    expect("value" in copied).toBe(true);
    if (!("value" in copied)) return;
    expect(JSON.stringify(copied.value)).toBe(JSON.stringify(source));
    expect(copied.value).not.toBe(source);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("copies own keys only, in JSON's order, and names the path of a problem found deep down", () => {
    class Base {
      shared = 1;
    }
    Object.defineProperty(Base.prototype, "inherited", { value: 2, enumerable: true });
    const source = { b: 1, 2: "two", a: new Base(), 0: [{ z: null }] };
    const copied = copyWireData(source, "v");
    expect("value" in copied && JSON.stringify(copied.value)).toBe(JSON.stringify(source));
    expect("value" in copied && JSON.stringify(copied.value)).toBe(
      '{"0":[{"z":null}],"2":"two","b":1,"a":{"shared":1}}',
    );
    const bad = copyWireData({ list: [{ ok: 1 }, { "a b": { n: Number.NaN } }] }, "data");
    expect("issue" in bad && bad.issue).toEqual({
      path: 'data.list[1]["a b"].n',
      message: "is NaN, which JSON cannot hold",
    });
  });

  it("refuses an object whose keys cannot be listed, at its own path", () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error("no keys for you");
        },
      },
    );
    const copied = copyWireData({ inner: { hostile } }, "data");
    expect("issue" in copied && copied.issue).toEqual({
      path: "data.inner.hostile",
      message: "could not be read (no keys for you)",
    });
  });

  it("refuses data holding too many values, without blowing up on a shared-reference DAG", () => {
    // 40 levels of two references to the same child: 2^40 paths if walked naively.
    let node: unknown = 1;
    for (let i = 0; i < 40; i++) node = [node, node];
    const copied = copyWireData(node, "data");
    expect("issue" in copied && copied.issue.message).toMatch(/holds more than .* values/);
  });
});
