// User data that goes over the wire (an Answer's data, a Request's data) must be plain JSON:
// it is stored, copied and sent as JSON text. A cyclic object, a BigInt or a 5,000-deep nest
// would otherwise fail later, deep in a store or a web handler, as a raw TypeError or
// RangeError. Checked once, here, with a path to the bad value, and copied while checked so a
// getter cannot hand a later reader something else than what was checked.

/** How deeply wire data may nest (objects and arrays); deeper data is refused. */
export const MAX_WIRE_DEPTH = 64;

/** How many values (every object, array and scalar) wire data may hold. */
export const MAX_WIRE_VALUES = 1_000_000;

/** One problem found in wire data, at `path` (e.g. `data.items[3].name`). */
export interface WireDataIssue {
  path: string;
  message: string;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function cut(text: string): string {
  return text.length <= 40 ? text : `${text.slice(0, 30)}…`;
}

function join(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  if (IDENTIFIER.test(key)) return path === "" ? key : `${path}.${key}`;
  return `${path}[${JSON.stringify(cut(key))}]`;
}

function messageOf(thrown: unknown): string {
  try {
    return thrown instanceof Error ? thrown.message || thrown.name : String(thrown);
  } catch {
    return "an unprintable error";
  }
}

class Refused {
  constructor(readonly issue: WireDataIssue) {}
}

/**
 * Walks and copies one value; throws a Refused at the first problem. The path of a problem is
 * put together only when there is one, from the key at each level (most data has none, and
 * a path string per value was most of the walk's cost).
 */
class Copier {
  /** One copier that never copied, kept for its hidden class (see the end of this file). */
  static readonly shapes: readonly object[] = [];
  private values = 0;
  /** The objects being copied, the outermost first: meeting one of them again is a cycle. */
  private readonly ancestors: object[] = [];
  /** The key or index taken at each level below the root. */
  private readonly keys: (string | number)[] = [];

  constructor(private readonly root: string) {}

  copy(value: unknown, depth: number): unknown {
    if (++this.values > MAX_WIRE_VALUES) {
      this.refuse(depth, `holds more than ${MAX_WIRE_VALUES} values`);
    }
    switch (typeof value) {
      case "string":
      case "boolean":
        return value;
      case "number":
        if (!Number.isFinite(value)) this.refuse(depth, `is ${value}, which JSON cannot hold`);
        return value;
      case "bigint":
        return this.refuse(depth, "is a BigInt, which JSON cannot hold; send it as a string");
      case "symbol":
        return this.refuse(depth, "is a Symbol, which JSON cannot hold");
      case "function":
        return this.refuse(depth, "is a function, which JSON cannot hold");
      case "undefined":
        return undefined;
    }
    if (value === null) return null;
    const object = value as object;
    if (depth >= MAX_WIRE_DEPTH) {
      this.refuse(depth, `is nested deeper than ${MAX_WIRE_DEPTH} levels`);
    }
    for (let i = 0; i < depth; i++) {
      if (this.ancestors[i] === object) this.refuse(depth, "refers back to itself (a cycle)");
    }
    this.ancestors[depth] = object;
    return Array.isArray(object) ? this.copyArray(object, depth) : this.copyObject(object, depth);
  }

  private copyArray(array: unknown[], depth: number): unknown[] {
    let length = 0;
    try {
      length = array.length;
    } catch (thrown) {
      this.unreadable(depth, thrown);
    }
    const copy: unknown[] = new Array(length);
    for (let i = 0; i < length; i++) {
      // JSON writes a hole or an undefined item as null.
      copy[i] = this.copy(this.child(array, i, depth), depth + 1) ?? null;
    }
    return copy;
  }

  private copyObject(object: object, depth: number): Record<string, unknown> {
    const source = object as Record<string, unknown>;
    const copy: Record<string, unknown> = {};
    try {
      // Own enumerable string keys, in Object.keys order, without an array of them per object.
      for (const key in source) {
        if (!Object.hasOwn(source, key)) continue;
        const copied = this.copy(this.child(source, key, depth), depth + 1);
        // JSON leaves out undefined properties; defineProperty keeps "__proto__" a plain key.
        if (copied === undefined) continue;
        if (key === "__proto__") {
          Object.defineProperty(copy, key, {
            value: copied,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        } else {
          copy[key] = copied;
        }
      }
    } catch (thrown) {
      // A proxy whose key listing fails; a problem found below is passed on as it is.
      if (thrown instanceof Refused) throw thrown;
      this.unreadable(depth, thrown);
    }
    return copy;
  }

  /** Reads `container[key]` (an item one level below `depth`), noting the key for a path. */
  private child(
    container: unknown[] | Record<string, unknown>,
    key: number | string,
    depth: number,
  ) {
    this.keys[depth] = key;
    try {
      return (container as Record<string | number, unknown>)[key];
    } catch (thrown) {
      return this.unreadable(depth + 1, thrown);
    }
  }

  private unreadable(depth: number, thrown: unknown): never {
    return this.refuse(depth, `could not be read (${cut(messageOf(thrown))})`);
  }

  private refuse(depth: number, message: string): never {
    let path = this.root;
    for (let i = 0; i < depth; i++) path = join(path, this.keys[i]!);
    throw new Refused({ path, message });
  }
}

/**
 * Copies `value` as plain JSON data: only own enumerable string keys, `undefined` properties
 * left out (as `JSON.stringify` does). Returns the first problem instead when the value is not
 * JSON (a cycle, a BigInt, a Symbol, a function, NaN or Infinity, a property whose getter
 * throws), nests deeper than {@link MAX_WIRE_DEPTH} or holds more than {@link MAX_WIRE_VALUES}
 * values. Never throws. `path` names the value in the messages (e.g. `"data"`).
 */
export function copyWireData(
  value: unknown,
  path: string,
): { value: unknown } | { issue: WireDataIssue } {
  try {
    return { value: new Copier(path).copy(value, 0) };
  } catch (thrown) {
    if (thrown instanceof Refused) return { issue: thrown.issue };
    // A stack overflow or a proxy trap failing outside a read: still a refusal, not a crash.
    return { issue: { path, message: `could not be read (${cut(messageOf(thrown))})` } };
  }
}

// A full GC that fell while no copy was under way threw away the copier's hidden class, and with
// it the compiled copy (`node --trace-deopt`: "weak objects"; a halt copies its request and
// arguments). One copier that never copied keeps it, as the client's Run.shapes does for a run.
(Copier.shapes as object[]).push(new Copier(""));
