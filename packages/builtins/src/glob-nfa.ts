// Matches a parsed glob in time linear in the path: the glob becomes a small automaton (one
// state per piece, Thompson's construction) and the path is run through the set of states it
// can be in, one UTF-16 unit at a time. A backtracking RegExp takes O(n^k) on a glob with k
// stars (`*a*a*a*a*a*a*b` on 60 a's took seconds); this takes O(n * states).
import type { GlobItem } from "./glob-parse.js";

const SLASH = 0x2f;

type State =
  /** Consumes one unit when `accepts` says so, then goes to `next`. */
  | { kind: "unit"; accepts: (unit: number) => boolean; next: number }
  /** Goes to every `next` without consuming anything. */
  | { kind: "split"; next: number[] }
  | { kind: "done" };

const notSlash = (unit: number) => unit !== SLASH;
const anyUnit = () => true;
const isSlash = (unit: number) => unit === SLASH;

/** A compiled glob: `test(path)` says whether the whole path matches. */
export class GlobAutomaton {
  readonly #states: State[] = [];
  readonly #start: number;
  /** Per state, the last step it was added in: keeps each state once per step. */
  readonly #seen: Int32Array;
  #step = 0;

  constructor(items: readonly GlobItem[]) {
    const done = this.#add({ kind: "done" });
    this.#start = this.#sequence(items, done);
    this.#seen = new Int32Array(this.#states.length).fill(-1);
  }

  test(path: string): boolean {
    let current = this.#closure([this.#start]);
    for (let i = 0; i < path.length && current.length > 0; i++) {
      const unit = path.charCodeAt(i);
      const targets: number[] = [];
      for (const index of current) {
        const state = this.#states[index] as State;
        if (state.kind === "unit" && state.accepts(unit)) targets.push(state.next);
      }
      current = this.#closure(targets);
    }
    return current.some((index) => this.#states[index]?.kind === "done");
  }

  /** The states reachable from `from` without consuming anything, each once. */
  #closure(from: readonly number[]): number[] {
    if (this.#step === 0x7fffffff) {
      this.#seen.fill(-1);
      this.#step = 0;
    }
    const step = this.#step++;
    const out: number[] = [];
    const stack = [...from];
    while (stack.length > 0) {
      const index = stack.pop() as number;
      if (this.#seen[index] === step) continue;
      this.#seen[index] = step;
      const state = this.#states[index] as State;
      if (state.kind === "split") {
        for (let k = state.next.length - 1; k >= 0; k--) stack.push(state.next[k] as number);
      } else out.push(index);
    }
    return out;
  }

  #add(state: State): number {
    this.#states.push(state);
    return this.#states.length - 1;
  }

  /** Built back to front: each piece is compiled knowing the state that follows it. */
  #sequence(items: readonly GlobItem[], next: number): number {
    let entry = next;
    for (let k = items.length - 1; k >= 0; k--) entry = this.#item(items[k] as GlobItem, entry);
    return entry;
  }

  #item(item: GlobItem, next: number): number {
    switch (item.kind) {
      case "literal": {
        const code = item.char.charCodeAt(0);
        return this.#add({ kind: "unit", accepts: (unit) => unit === code, next });
      }
      case "class":
        return this.#add({ kind: "unit", accepts: classTest(item.source), next });
      case "segment":
        return this.#loop(notSlash, next);
      case "any":
        return this.#loop(anyUnit, next);
      case "folders": {
        // (?:[^/]*/)*: a loop of "name, then /".
        const outer = this.#add({ kind: "split", next: [] });
        const slash = this.#add({ kind: "unit", accepts: isSlash, next: outer });
        const name = this.#loop(notSlash, slash);
        (this.#states[outer] as { next: number[] }).next.push(name, next);
        return outer;
      }
      case "below": {
        // (?:/.*)?: nothing, or "/" and anything.
        const slash = this.#add({
          kind: "unit",
          accepts: isSlash,
          next: this.#loop(anyUnit, next),
        });
        return this.#add({ kind: "split", next: [slash, next] });
      }
      case "choice":
        return this.#add({
          kind: "split",
          next: item.options.map((option) => this.#sequence(option, next)),
        });
    }
  }

  /** `accepts*`, then `next`. */
  #loop(accepts: (unit: number) => boolean, next: number): number {
    const split = this.#add({ kind: "split", next: [] });
    const unit = this.#add({ kind: "unit", accepts, next: split });
    (this.#states[split] as { next: number[] }).next.push(unit, next);
    return split;
  }
}

/**
 * A class tested on one unit by the RegExp class it has always been: the same ranges and
 * escapes, and a bad class (`[z-a]`) throws here, when the matcher is made. A one-unit test
 * cannot backtrack.
 */
function classTest(source: string): (unit: number) => boolean {
  const re = new RegExp(`^${source}$`, "s");
  return (unit) => re.test(String.fromCharCode(unit));
}
