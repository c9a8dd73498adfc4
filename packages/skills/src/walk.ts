import type { Dirent } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import { compareBytes } from "./text.js";

/** Folders never searched: they hold dependencies and history, not skills. */
const SKIPPED_DIRS = new Set(["node_modules", ".git"]);

type Kind = "dir" | "file" | undefined;

/** A directory's entries sorted by name (bytes), or undefined when it cannot be read. */
async function sortedEntries(dir: string): Promise<Dirent[] | undefined> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.sort((a, b) => compareBytes(a.name, b.name));
  } catch {
    return undefined;
  }
}

/** What an entry is, following a symbolic link to its target; undefined for anything else. */
async function kindOf(full: string, entry: Dirent): Promise<Kind> {
  if (entry.isSymbolicLink()) {
    try {
      const target = await stat(full);
      return target.isDirectory() ? "dir" : target.isFile() ? "file" : undefined;
    } catch {
      return undefined; // a dangling link
    }
  }
  return entry.isDirectory() ? "dir" : entry.isFile() ? "file" : undefined;
}

async function realOf(path: string): Promise<string | undefined> {
  try {
    return await realpath(path);
  } catch {
    return undefined;
  }
}

/**
 * The one traversal every port shares, for discovery and for the file sample: depth first with
 * a stack. Each directory's entries are visited in byte order; its files are taken in that
 * order, its subdirectories pushed, and the last pushed is visited next. Symbolic links to
 * files and directories are followed; a directory already visited (by real path, the root
 * included) is not entered again, so link cycles end. `take` says whether a file is wanted;
 * the walk stops once `limit` files are taken.
 */
export async function walk(
  root: string,
  take: (name: string) => boolean,
  limit: number,
  signal: AbortSignal | undefined,
): Promise<string[]> {
  const out: string[] = [];
  const seen = new Set<string>();
  const rootReal = await realOf(root);
  if (rootReal !== undefined) seen.add(rootReal);
  const stack = [root];
  while (stack.length > 0 && out.length < limit) {
    signal?.throwIfAborted();
    const dir = stack.pop() as string;
    const entries = await sortedEntries(dir);
    if (entries === undefined) continue;
    for (const entry of entries) {
      if (out.length >= limit) break;
      const full = join(dir, entry.name);
      const kind = await kindOf(full, entry);
      if (kind === "dir") {
        if (SKIPPED_DIRS.has(entry.name)) continue;
        const real = await realOf(full);
        if (real === undefined || seen.has(real)) continue;
        seen.add(real);
        stack.push(full);
      } else if (kind === "file" && take(entry.name)) {
        out.push(full);
      }
    }
  }
  return out;
}

/** Every `SKILL.md` under `root`, in the shared discovery order. */
export function findSkillFiles(root: string, signal?: AbortSignal): Promise<string[]> {
  return walk(root, (name) => name === "SKILL.md", Number.POSITIVE_INFINITY, signal);
}

/** Up to `limit` files of a skill's folder (subfolders included), never a `SKILL.md`. */
export function sampleSkillFiles(
  dir: string,
  limit: number,
  signal?: AbortSignal,
): Promise<string[]> {
  return walk(dir, (name) => name !== "SKILL.md", limit, signal);
}
