// A glob parsed once into items, shared by the linear-time matcher (glob-nfa.ts) and by
// globToRegExp. Each item is one piece of the RegExp the glob has always compiled to, so the
// two agree on every pattern (see glob-match.ts for the syntax).

/** One piece of a parsed glob. */
export type GlobItem =
  /** One character, as written (or escaped with "\"). */
  | { kind: "literal"; char: string }
  /** One character tested by a RegExp class: `?` is `[^/]`, `[a-z]`, `[!a]`. */
  | { kind: "class"; source: string }
  /** `*`: any run of characters but "/". */
  | { kind: "segment" }
  /** `**` inside a name: any run of characters, "/" included. */
  | { kind: "any" }
  /** `**\/` at the start of a segment: zero or more whole folders. */
  | { kind: "folders" }
  /** A trailing `/**`: nothing, or "/" and anything below. */
  | { kind: "below" }
  /** `{a,b}`: one of the alternatives. */
  | { kind: "choice"; options: GlobItem[][] };

const SPECIAL = /[\\^$.|+()[\]{}*?]/;

interface Parsed {
  items: GlobItem[];
  /** Index just past what was consumed. */
  end: number;
}

/** Parses a glob into items. */
export function parseGlob(glob: string): GlobItem[] {
  // An unclosed "{" is retried as a literal, which re-parses what follows it: without the memo
  // a run of "{" costs 2^n (30 of them took minutes).
  return parse(glob, 0, false, new Map()).items;
}

/** The RegExp source of parsed items (not anchored). */
export function regexSource(items: readonly GlobItem[]): string {
  let out = "";
  for (const item of items) {
    switch (item.kind) {
      case "literal":
        out += SPECIAL.test(item.char) ? `\\${item.char}` : item.char;
        break;
      case "class":
        out += item.source;
        break;
      case "segment":
        out += "[^/]*";
        break;
      case "any":
        out += ".*";
        break;
      case "folders":
        out += "(?:[^/]*/)*";
        break;
      case "below":
        out += "(?:/.*)?";
        break;
      case "choice":
        out += `(?:${item.options.map(regexSource).join("|")})`;
        break;
    }
  }
  return out;
}

/**
 * Parses from `start`; inside braces it stops at the closing "}" (or a "," at depth 0). The
 * result depends only on (`start`, `inBraces`), so brace parses are memoized by `start`.
 */
function parse(glob: string, start: number, inBraces: boolean, memo: Map<number, Parsed>): Parsed {
  if (inBraces) {
    const known = memo.get(start);
    if (known !== undefined) return known;
  }
  const items: GlobItem[] = [];
  let i = start;
  let end: number | undefined;
  while (i < glob.length) {
    const c = glob[i] as string;
    if (inBraces && (c === "," || c === "}")) {
      end = i;
      break;
    }
    if (c === "\\" && i + 1 < glob.length) {
      items.push({ kind: "literal", char: glob[i + 1] as string });
      i += 2;
    } else if (c === "*") {
      i = star(glob, i, items);
    } else if (c === "?") {
      items.push({ kind: "class", source: "[^/]" });
      i++;
    } else if (c === "[") {
      i = bracket(glob, i, items);
    } else if (c === "{") {
      i = brace(glob, i, items, memo);
    } else {
      items.push({ kind: "literal", char: c });
      i++;
    }
  }
  const parsed = { items, end: end ?? i };
  if (inBraces) memo.set(start, parsed);
  return parsed;
}

/** `*` or a run of `*` at `i`; returns the index after it. */
function star(glob: string, i: number, items: GlobItem[]): number {
  if (glob[i + 1] !== "*") {
    items.push({ kind: "segment" });
    return i + 1;
  }
  const atSegmentStart = i === 0 || glob[i - 1] === "/";
  let j = i + 2;
  while (glob[j] === "*") j++;
  if (atSegmentStart && glob[j] === "/") {
    items.push({ kind: "folders" });
    return j + 1;
  }
  if (atSegmentStart && j === glob.length && i > 0) {
    // "a/**": the folder itself too, so the "/" before it becomes part of "below".
    const last = items[items.length - 1];
    if (last?.kind === "literal" && last.char === "/") items.pop();
    items.push({ kind: "below" });
    return j;
  }
  items.push({ kind: "any" });
  return j;
}

/** A class at `open` (or a literal "[" when it does not close); returns the index after it. */
function bracket(glob: string, open: number, items: GlobItem[]): number {
  const close = classEnd(glob, open);
  if (close === -1) {
    items.push({ kind: "literal", char: "[" });
    return open + 1;
  }
  let body = glob.slice(open + 1, close);
  let negate = false;
  if (body.startsWith("!") || body.startsWith("^")) {
    negate = true;
    body = body.slice(1);
  }
  const inner = body.replace(/\\/g, "\\\\").replace(/\]/g, "\\]").replace(/\[/g, "\\[");
  items.push({ kind: "class", source: negate ? `[^/${inner}]` : `[${inner}]` });
  return close + 1;
}

/** Index of the "]" closing the class opened at `open`, or -1. */
function classEnd(glob: string, open: number): number {
  let i = open + 1;
  if (glob[i] === "!" || glob[i] === "^") i++;
  if (glob[i] === "]") i++; // a leading "]" is literal
  for (; i < glob.length; i++) {
    if (glob[i] === "/") return -1;
    if (glob[i] === "]") return i;
  }
  return -1;
}

/** `{a,b}` at `open` (or a literal "{" when it does not close); returns the index after it. */
function brace(glob: string, open: number, items: GlobItem[], memo: Map<number, Parsed>): number {
  const options: GlobItem[][] = [];
  let j = open + 1;
  while (j <= glob.length) {
    const part = parse(glob, j, true, memo);
    options.push(part.items);
    if (part.end >= glob.length) break;
    if (glob[part.end] === "}") {
      items.push({ kind: "choice", options });
      return part.end + 1;
    }
    j = part.end + 1; // past ","
  }
  items.push({ kind: "literal", char: "{" });
  return open + 1;
}
