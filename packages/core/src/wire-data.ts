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

/** Walks and copies one value; throws a Refused at the first problem. */
class Copier {
  private values = 0;
  private readonly open = new Set<object>();

  copy(value: unknown, path: string, depth: number): unknown {
    if (++this.values > MAX_WIRE_VALUES) {
      this.refuse(path, `holds more than ${MAX_WIRE_VALUES} values`);
    }
    switch (typeof value) {
      case "string":
      case "boolean":
        return value;
      case "number":
        if (!Number.isFinite(value)) this.refuse(path, `is ${value}, which JSON cannot hold`);
        return value;
      case "bigint":
        return this.refuse(path, "is a BigInt, which JSON cannot hold; send it as a string");
      case "symbol":
        return this.refuse(path, "is a Symbol, which JSON cannot hold");
      case "function":
        return this.refuse(path, "is a function, which JSON cannot hold");
      case "undefined":
        return undefined;
    }
    if (value === null) return null;
    const object = value as object;
    if (depth >= MAX_WIRE_DEPTH) {
      this.refuse(path, `is nested deeper than ${MAX_WIRE_DEPTH} levels`);
    }
    if (this.open.has(object)) this.refuse(path, "refers back to itself (a cycle)");
    this.open.add(object);
    try {
      return Array.isArray(object)
        ? this.copyArray(object, path, depth)
        : this.copyObject(object, path, depth);
    } finally {
      this.open.delete(object);
    }
  }

  private copyArray(array: unknown[], path: string, depth: number): unknown[] {
    const length = this.read(() => array.length, path) as number;
    const copy: unknown[] = new Array(length);
    for (let i = 0; i < length; i++) {
      const at = join(path, i);
      // JSON writes a hole or an undefined item as null.
      copy[i] =
        this.copy(
          this.read(() => array[i], at),
          at,
          depth + 1,
        ) ?? null;
    }
    return copy;
  }

  private copyObject(object: object, path: string, depth: number): Record<string, unknown> {
    const keys = this.read(() => Object.keys(object), path) as string[];
    const copy: Record<string, unknown> = {};
    for (const key of keys) {
      const at = join(path, key);
      const item = this.copy(
        this.read(() => (object as Record<string, unknown>)[key], at),
        at,
        depth + 1,
      );
      // JSON leaves out undefined properties; defineProperty keeps "__proto__" a plain key.
      if (item !== undefined) {
        Object.defineProperty(copy, key, {
          value: item,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    }
    return copy;
  }

  private read(get: () => unknown, path: string): unknown {
    try {
      return get();
    } catch (thrown) {
      return this.refuse(path, `could not be read (${cut(messageOf(thrown))})`);
    }
  }

  private refuse(path: string, message: string): never {
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
    return { value: new Copier().copy(value, path, 0) };
  } catch (thrown) {
    if (thrown instanceof Refused) return { issue: thrown.issue };
    // A stack overflow or a proxy trap failing outside a read: still a refusal, not a crash.
    return { issue: { path, message: `could not be read (${cut(messageOf(thrown))})` } };
  }
}
