// Keeps the file tools inside their root folder. A path is refused when, written out, it lies
// outside the root (`../x`, `/etc/passwd`), or when following symbolic links (the target's, or
// any parent folder's, including dangling links a write would create through) leads outside it.
import { lstat, readlink, realpath } from "node:fs/promises";
import path from "node:path";
import type { ToolResult } from "@toolnexus/core";
import { error } from "@toolnexus/core";

/** How many symbolic links one path may go through before it is refused (like the kernel's). */
const MAX_LINKS = 40;

/** A path inside the root: `real` has every existing symbolic link resolved. */
export interface Resolved {
  /** The path as the model wrote it. */
  input: string;
  /** The absolute path with the links resolved: the one to open. */
  real: string;
}

export type Refusal = { refused: ToolResult };

export class Root {
  /** The root as configured, absolute. */
  readonly path: string;
  /** Whether files with more than one hard link may be opened (see beneath.ts). */
  readonly allowHardLinks: boolean;

  constructor(root: string | undefined, options: { allowHardLinks?: boolean } = {}) {
    this.path = path.resolve(root ?? process.cwd());
    this.allowHardLinks = options.allowHardLinks === true;
  }

  /** The root with its own links resolved; an error when it does not exist. */
  async real(): Promise<string> {
    try {
      return await realpath(this.path);
    } catch {
      throw new Error(`the root folder ${this.path} does not exist`);
    }
  }

  /**
   * Resolves `input` (relative to the root, or absolute) to a path inside the root, or to a
   * refusal result saying what was refused and why.
   */
  async resolve(tool: string, input: string): Promise<Resolved | Refusal> {
    if (input.includes("\0")) return this.#refuse(tool, input, "it contains a NUL byte");
    const realRoot = await this.real();
    const written = path.resolve(this.path, input);
    if (!within(this.path, written) && !within(realRoot, written)) {
      return this.#refuse(
        tool,
        input,
        path.isAbsolute(input)
          ? `it is an absolute path outside the root folder ${this.path}`
          : `it leads outside the root folder ${this.path}`,
      );
    }
    let real: string;
    try {
      real = await resolveLinks(written);
    } catch (thrown) {
      return this.#refuse(tool, input, (thrown as Error).message);
    }
    if (!within(realRoot, real)) {
      return this.#refuse(
        tool,
        input,
        `a symbolic link leads outside the root folder ${this.path} (to ${real})`,
      );
    }
    return { input, real };
  }

  /** The refusal result of `tool` for `input`, saying why. */
  refusal(tool: string, input: string, why: string): ToolResult {
    return this.#refuse(tool, input, why).refused;
  }

  #refuse(tool: string, input: string, why: string): Refusal {
    return {
      refused: error(`${tool}: refused ${JSON.stringify(input)}: ${why}`, {
        refused: true,
        path: input,
      }),
    };
  }
}

export function isRefusal(value: Resolved | Refusal): value is Refusal {
  return "refused" in value;
}

/** True when `target` is `base` or below it (both absolute and normalized). */
export function within(base: string, target: string): boolean {
  const rel = path.relative(base, target);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * `target` with every symbolic link resolved, for paths that do not (fully) exist too: the
 * longest existing prefix goes through realpath, and a dangling link is followed by hand (a write
 * through it would create its target).
 */
async function resolveLinks(target: string, hops = 0): Promise<string> {
  const rest: string[] = [];
  let current = target;
  for (;;) {
    try {
      return path.join(await realpath(current), ...rest);
    } catch (thrown) {
      const code = (thrown as NodeJS.ErrnoException).code;
      if (code === "ELOOP") throw new Error("it goes through a loop of symbolic links");
      if (code !== "ENOENT" && code !== "ENOTDIR") throw thrown;
    }
    const stats = await lstat(current).catch(() => undefined);
    if (stats?.isSymbolicLink()) {
      if (hops >= MAX_LINKS) throw new Error("it goes through too many symbolic links");
      const next = path.resolve(path.dirname(current), await readlink(current));
      return resolveLinks(path.join(next, ...rest), hops + 1);
    }
    const parent = path.dirname(current);
    if (parent === current) return path.join(current, ...rest);
    rest.unshift(path.basename(current));
    current = parent;
  }
}
