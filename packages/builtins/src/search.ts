import path from "node:path";
import type { ToolResult } from "@toolnexus/core";
import { error } from "@toolnexus/core";
import { isRefusal, type Root } from "./confine.js";
import { type Args, ArgumentError, optionalNumber, optionalString } from "./define.js";
import { statOf } from "./files.js";
import type { CallLimit } from "./limit.js";
import type { WalkedFile } from "./walk.js";
import { walkFiles } from "./walk.js";

/** The default cap on results of grep and glob (the contract's 100). */
export const DEFAULT_SEARCH_LIMIT = 100;

/** `limit`: a positive whole number, default 100. */
export function searchLimit(args: Args): number {
  const value = optionalNumber(args, "limit");
  if (value === undefined) return DEFAULT_SEARCH_LIMIT;
  const n = Math.trunc(value);
  if (n < 1) throw new ArgumentError("limit must be at least 1");
  return n;
}

/** Where a search starts: the `path` argument (a folder or one file) inside the root. */
export interface SearchStart {
  /** How to print a found file: the `path` argument (or the root) joined with its relative path. */
  shown: string;
  real: string;
  isFile: boolean;
  /** The root with its links resolved: the walk stays beneath it. */
  realRoot: string;
}

export async function searchStart(
  tool: string,
  root: Root,
  args: Args,
): Promise<SearchStart | ToolResult> {
  const input = optionalString(args, "path");
  const resolved = await root.resolve(tool, input ?? ".");
  if (isRefusal(resolved)) return resolved.refused;
  const stats = await statOf(resolved.real);
  if (stats === undefined) return error(`${tool}: path not found: ${input}`);
  if (!stats.isDirectory() && !stats.isFile()) {
    return error(`${tool}: refused ${JSON.stringify(input)}: it is not a folder or a file`);
  }
  return {
    shown: input ?? root.path,
    real: resolved.real,
    isFile: stats.isFile(),
    realRoot: await root.real(),
  };
}

/** The files of a search: the one file, or the walk of the folder. */
export async function* filesOf(start: SearchStart, limit: CallLimit): AsyncGenerator<WalkedFile> {
  if (start.isFile) {
    yield { full: start.real, rel: path.basename(start.real) };
    return;
  }
  yield* walkFiles(start.realRoot, start.real, limit);
}

/** A found file as printed: `path.join(<path argument or root>, <relative path>)`. */
export function shownPath(start: SearchStart, file: WalkedFile): string {
  return start.isFile ? start.shown : path.join(start.shown, file.rel);
}
