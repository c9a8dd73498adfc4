// The store's long-lived tables (runs by id, a request's rows by its id): a Map whose values are
// held through a box that is emptied when its key is deleted.
//
// Why not a plain Map: a Map that lives long and churns (a row in, an older row out, at every
// run) replaces its hash table again and again, and V8 keeps each replaced table, with what it
// held, until the next full GC. The young-generation GC then treats those tables as roots: rows
// the store had dropped survived, were promoted to the old generation, and every scavenge copied
// them. Measured on the suspend-and-resume bench (`node --trace-gc-nvp src/profile.mjs s5 20000`
// in bench/): 45 MB promoted in 22,000 cycles with a Map of rows, 15 MB with a Map of boxes. A
// dropped row now leaves only an empty box behind.

interface Box<V> {
  value: V | undefined;
}

/** A string-keyed table in insertion order, like a Map of the methods the store uses. */
export class Table<V> {
  readonly #boxes = new Map<string, Box<V>>();

  get size(): number {
    return this.#boxes.size;
  }

  get(key: string): V | undefined {
    return this.#boxes.get(key)?.value;
  }

  has(key: string): boolean {
    return this.#boxes.has(key);
  }

  /** Sets the value; a key already there keeps its place in the order, as in a Map. */
  set(key: string, value: V): void {
    const box = this.#boxes.get(key);
    if (box !== undefined) box.value = value;
    else this.#boxes.set(key, { value });
  }

  delete(key: string): boolean {
    const box = this.#boxes.get(key);
    if (box === undefined) return false;
    box.value = undefined;
    return this.#boxes.delete(key);
  }

  /** The values in insertion order; a key deleted meanwhile is skipped, as a Map's would be. */
  *values(): IterableIterator<V> {
    for (const box of this.#boxes.values()) yield box.value as V;
  }
}
