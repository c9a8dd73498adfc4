// The apply_patch grammar (opencode's):
//
//   *** Begin Patch
//   *** Add File: path        then "+" lines: the new file's content
//   *** Delete File: path
//   *** Update File: path     then optionally "*** Move to: new/path", then hunks:
//   @@ optional anchor line   (a hunk starts at "@@"; the anchor is searched first)
//    context  / -removed / +added lines, and "*** End of File" for a hunk at the file's end
//   *** End Patch

/** A parse failure; its message is shown to the model. */
export class PatchError extends Error {}

export interface HunkLine {
  kind: " " | "-" | "+";
  text: string;
}

export interface Hunk {
  /** The text after "@@ ", searched for before the hunk's lines. */
  anchor?: string;
  lines: HunkLine[];
  /** The hunk is at the end of the file ("*** End of File"). */
  endOfFile: boolean;
}

export type PatchOp =
  | { kind: "add"; path: string; content: string }
  | { kind: "delete"; path: string }
  | { kind: "update"; path: string; moveTo?: string; hunks: Hunk[] };

const FILE_MARKER = /^\*\*\* (Add|Update|Delete) File: (.+)$/;
const MOVE_MARKER = /^\*\*\* Move to: (.+)$/;
const END_PATCH = "*** End Patch";
const END_OF_FILE = "*** End of File";

/** Parses a patch into its file operations, in order. */
export function parsePatch(patchText: string): PatchOp[] {
  const lines = patchText.split("\n").map((line) => line.replace(/\r$/, ""));
  let i = 0;
  while (i < lines.length && (lines[i] as string).trim() === "") i++;
  if ((lines[i] ?? "").trim() !== "*** Begin Patch") {
    throw new PatchError("missing '*** Begin Patch'");
  }
  i++;
  const ops: PatchOp[] = [];
  for (;;) {
    if (i >= lines.length) throw new PatchError("missing '*** End Patch'");
    const line = lines[i] as string;
    if (line.trim() === END_PATCH) break;
    if (line.trim() === "") {
      i++;
      continue;
    }
    const marker = FILE_MARKER.exec(line.trimEnd());
    if (marker === null) throw new PatchError(`unexpected line: ${line}`);
    const kind = marker[1] as "Add" | "Update" | "Delete";
    const path = (marker[2] as string).trim();
    i++;
    let moveTo: string | undefined;
    if (kind === "Update") {
      const move = MOVE_MARKER.exec((lines[i] ?? "").trimEnd());
      if (move !== null) {
        moveTo = (move[1] as string).trim();
        i++;
      }
    }
    const body: string[] = [];
    while (i < lines.length) {
      const next = lines[i] as string;
      if (next.trim() === END_PATCH || FILE_MARKER.test(next.trimEnd())) break;
      body.push(next);
      i++;
    }
    // Bare empty lines at the end of a section separate sections; they are not content.
    while (body.length > 0 && body[body.length - 1] === "") body.pop();
    if (kind === "Add") {
      ops.push({
        kind: "add",
        path,
        content: body.map((l) => (l.startsWith("+") ? l.slice(1) : l)).join("\n"),
      });
    } else if (kind === "Delete") {
      if (body.length > 0) throw new PatchError(`unexpected line after Delete File: ${body[0]}`);
      ops.push({ kind: "delete", path });
    } else {
      const hunks = parseHunks(body);
      if (hunks.length === 0 && moveTo === undefined) {
        throw new PatchError(`Update File: ${path} has no changes`);
      }
      ops.push(
        moveTo === undefined
          ? { kind: "update", path, hunks }
          : { kind: "update", path, moveTo, hunks },
      );
    }
  }
  if (ops.length === 0) throw new PatchError("the patch has no file operations");
  return ops;
}

function parseHunks(body: string[]): Hunk[] {
  const hunks: Hunk[] = [];
  let current: Hunk | undefined;
  for (const line of body) {
    if (line.startsWith("@@")) {
      const anchor = line.slice(2).trim();
      current =
        anchor === "" ? { lines: [], endOfFile: false } : { anchor, lines: [], endOfFile: false };
      hunks.push(current);
      continue;
    }
    if (current === undefined) {
      current = { lines: [], endOfFile: false };
      hunks.push(current);
    }
    if (line.trim() === END_OF_FILE) {
      current.endOfFile = true;
      continue;
    }
    const first = line[0];
    if (first === "+" || first === "-" || first === " ") {
      current.lines.push({ kind: first, text: line.slice(1) });
    } else {
      current.lines.push({ kind: " ", text: line }); // lenient: an unprefixed line is context
    }
  }
  return hunks.filter((hunk) => hunk.lines.length > 0 || hunk.anchor !== undefined);
}

type Same = (a: string, b: string) => boolean;
const COMPARATORS: Same[] = [
  (a, b) => a === b,
  (a, b) => a.trimEnd() === b.trimEnd(),
  (a, b) => a.trim() === b.trim(),
];

/** Where `pattern` occurs in `lines` at or after `from` (exact first, then ignoring spaces). */
function seek(lines: string[], pattern: string[], from: number, atEnd: boolean): number {
  const last = lines.length - pattern.length;
  for (const same of COMPARATORS) {
    if (atEnd) {
      // The file's last lines, before a final newline's empty entry or without one.
      for (const at of [last - (lines[lines.length - 1] === "" ? 1 : 0), last]) {
        if (at >= from && matchesAt(lines, pattern, at, same)) return at;
      }
    }
    for (let at = from; at <= last; at++) {
      if (matchesAt(lines, pattern, at, same)) return at;
    }
  }
  return -1;
}

function matchesAt(lines: string[], pattern: string[], at: number, same: Same): boolean {
  for (let k = 0; k < pattern.length; k++) {
    if (!same(lines[at + k] as string, pattern[k] as string)) return false;
  }
  return true;
}

/** Applies an Update's hunks to `content`, in order; throws PatchError when one does not match. */
export function applyHunks(content: string, hunks: Hunk[], shown: string): string {
  const lines = content.split("\n");
  let cursor = 0;
  hunks.forEach((hunk, index) => {
    const label = `hunk ${index + 1} of ${shown}`;
    if (hunk.anchor !== undefined) {
      const anchor = hunk.anchor;
      const at = seek(lines, [anchor], cursor, false);
      if (at === -1) {
        throw new PatchError(
          `${label}: the line after @@ (${JSON.stringify(anchor)}) is not in the file`,
        );
      }
      cursor = at + 1;
    }
    const before = hunk.lines.filter((l) => l.kind !== "+").map((l) => l.text);
    const after = hunk.lines.filter((l) => l.kind !== "-").map((l) => l.text);
    if (before.length === 0) {
      // Pure insertion: after the anchor, else at the end (before a final newline).
      const at =
        hunk.anchor !== undefined && !hunk.endOfFile
          ? cursor
          : lines[lines.length - 1] === ""
            ? lines.length - 1
            : lines.length;
      lines.splice(at, 0, ...after);
      cursor = at + after.length;
      return;
    }
    const at = seek(lines, before, cursor, hunk.endOfFile);
    if (at === -1) throw new PatchError(`${label} does not match the file contents`);
    // Context lines keep the file's own text (a loose match may differ in spaces).
    const replacement: string[] = [];
    let k = 0;
    for (const line of hunk.lines) {
      if (line.kind === "+") replacement.push(line.text);
      else {
        if (line.kind === " ") replacement.push(lines[at + k] as string);
        k++;
      }
    }
    lines.splice(at, before.length, ...replacement);
    cursor = at + replacement.length;
  });
  return lines.join("\n");
}
