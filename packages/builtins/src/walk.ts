// The folder walk grep and glob share: depth first, names sorted (so results do not depend on
// the file system's order), .git and node_modules skipped, symbolic links never followed (a link
// cannot lead the walk out of the root or into a loop).
import path from "node:path";
import { listBeneath } from "./beneath.js";
import type { CallLimit } from "./limit.js";

const SKIPPED = new Set([".git", "node_modules"]);

/** A regular file found by the walk. */
export interface WalkedFile {
  /** Absolute path. */
  full: string;
  /** Relative to the walk's start, "/"-separated. */
  rel: string;
}

/**
 * Regular files under `dir` (inside `realRoot`), in sorted depth-first order; stops when `limit`
 * stops. A folder replaced by a link while the walk runs is skipped (see listBeneath).
 */
export async function* walkFiles(
  realRoot: string,
  dir: string,
  limit: CallLimit,
): AsyncGenerator<WalkedFile> {
  const stack: { full: string; rel: string }[] = [{ full: dir, rel: "" }];
  while (stack.length > 0) {
    limit.check();
    const folder = stack.pop() as { full: string; rel: string };
    const names: { name: string; kind: "dir" | "file" }[] = [];
    try {
      for (const entry of await listBeneath(realRoot, folder.full)) {
        if (entry.isDirectory()) {
          if (!SKIPPED.has(entry.name)) names.push({ name: entry.name, kind: "dir" });
        } else if (entry.isFile()) names.push({ name: entry.name, kind: "file" });
        // symbolic links, sockets, fifos, devices: skipped
      }
    } catch {
      continue; // unreadable folder
    }
    names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subfolders: { full: string; rel: string }[] = [];
    for (const { name, kind } of names) {
      const full = path.join(folder.full, name);
      const rel = folder.rel === "" ? name : `${folder.rel}/${name}`;
      if (kind === "file") yield { full, rel };
      else subfolders.push({ full, rel });
    }
    // Files of a folder first, then its subfolders in name order.
    for (let i = subfolders.length - 1; i >= 0; i--)
      stack.push(subfolders[i] as { full: string; rel: string });
  }
}
