// Glob patterns for glob's `pattern` and grep's `include`, matched against "/"-separated paths
// relative to the search folder. `*` is any run of characters but "/", `?` one such character,
// `**` any number of folders (`**/x` matches `x` too), `[abc]`/`[a-z]`/`[!a]` a class, `{a,b}`
// alternatives. Dotfiles match like any other name. A pattern without "/" is matched against the
// file's name alone (the contract ports' rule), so `*.ts` finds .ts files at every depth.

const SPECIAL = /[\\^$.|+()[\]{}*?]/;

/** Compiles a glob to an anchored RegExp over "/"-separated relative paths. */
export function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${compile(glob, 0, false).source}$`, "s");
}

/** True when `rel` ("/"-separated) matches `glob` (basename only when the glob has no "/"). */
export function matchGlob(rel: string, glob: string): boolean {
  return globMatcher(glob)(rel);
}

/** A reusable matcher for one glob. */
export function globMatcher(glob: string): (rel: string) => boolean {
  const re = globToRegExp(glob);
  if (glob.includes("/")) return (rel) => re.test(rel);
  return (rel) => re.test(rel.slice(rel.lastIndexOf("/") + 1));
}

interface Compiled {
  source: string;
  /** Index just past what was consumed. */
  end: number;
}

/** Compiles from `start`; inside braces it stops at the closing "}" (or a "," at depth 0). */
function compile(glob: string, start: number, inBraces: boolean): Compiled {
  let out = "";
  let i = start;
  while (i < glob.length) {
    const c = glob[i] as string;
    if (inBraces && (c === "," || c === "}")) return { source: out, end: i };
    if (c === "\\" && i + 1 < glob.length) {
      out += literal(glob[i + 1] as string);
      i += 2;
    } else if (c === "*") {
      if (glob[i + 1] === "*") {
        const atSegmentStart = i === 0 || glob[i - 1] === "/";
        let j = i + 2;
        while (glob[j] === "*") j++;
        if (atSegmentStart && glob[j] === "/") {
          out += "(?:[^/]*/)*"; // "**/": zero or more folders
          i = j + 1;
        } else if (atSegmentStart && j === glob.length && i > 0) {
          out = out.replace(/\/$/, "");
          out += "(?:/.*)?"; // trailing "/**": the folder and everything below it
          i = j;
        } else {
          out += ".*";
          i = j;
        }
      } else {
        out += "[^/]*";
        i++;
      }
    } else if (c === "?") {
      out += "[^/]";
      i++;
    } else if (c === "[") {
      const close = classEnd(glob, i);
      if (close === -1) {
        out += "\\[";
        i++;
      } else {
        let body = glob.slice(i + 1, close);
        let negate = false;
        if (body.startsWith("!") || body.startsWith("^")) {
          negate = true;
          body = body.slice(1);
        }
        const inner = body.replace(/\\/g, "\\\\").replace(/\]/g, "\\]").replace(/\[/g, "\\[");
        out += negate ? `[^/${inner}]` : `[${inner}]`;
        i = close + 1;
      }
    } else if (c === "{") {
      const alternatives: string[] = [];
      let j = i + 1;
      let closed = false;
      while (j <= glob.length) {
        const part = compile(glob, j, true);
        alternatives.push(part.source);
        if (part.end >= glob.length) break;
        if (glob[part.end] === "}") {
          closed = true;
          j = part.end + 1;
          break;
        }
        j = part.end + 1; // past ","
      }
      if (closed) {
        out += `(?:${alternatives.join("|")})`;
        i = j;
      } else {
        out += "\\{";
        i++;
      }
    } else {
      out += literal(c);
      i++;
    }
  }
  return { source: out, end: i };
}

function literal(c: string): string {
  return SPECIAL.test(c) ? `\\${c}` : c;
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
