// Opening a checked path so that what is opened is what was checked. A path is checked first
// (confine.ts resolves its links); another process can still swap a parent folder for a symbolic
// link before the open. On Linux the open therefore walks down from the root one folder at a
// time through the folder descriptors (`/proc/self/fd/<n>/<name>`, like openat), each step with
// O_NOFOLLOW: a link swapped in anywhere on the path makes the open fail instead of leaving the
// root. Elsewhere the file is opened by path and then verified: its device and inode must be
// those of the path resolved again after the open, inside the root.
import { constants, type Dirent, existsSync } from "node:fs";
import { type FileHandle, mkdir, open, readdir, realpath, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { within } from "./confine.js";

/** A path that left the root while it was being opened, or a file the root refuses. */
export class ConfinementError extends Error {
  override name = "ConfinementError";
}

const FD_DIR = process.platform === "linux" && existsSync("/proc/self/fd") ? "/proc/self/fd" : "";
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const DIRECTORY = constants.O_DIRECTORY ?? 0;

const SWAPPED = "a folder on its path was replaced (by a symbolic link?) while it was being opened";

export interface BeneathOptions {
  /** Create the missing parent folders (inside the root) on the way down. */
  createParents?: boolean;
  /** Accept a regular file with more than one hard link (refused by default). */
  allowHardLinks?: boolean;
}

/**
 * Opens `real` (absolute, inside `realRoot`, links already resolved) with `flags` (O_NOFOLLOW is
 * added) and checks what was opened: it must still be inside the root, and a regular file with
 * more than one hard link is refused unless `allowHardLinks` (a hard link is the file itself,
 * wherever its other names are, so it may be a file from outside the root).
 */
export async function openBeneath(
  realRoot: string,
  real: string,
  flags: number,
  options: BeneathOptions = {},
): Promise<FileHandle> {
  const handle = FD_DIR
    ? await openByDescriptors(realRoot, real, flags, options)
    : await openThenVerify(realRoot, real, flags, options);
  try {
    const stats = await handle.stat();
    if (stats.isFile() && stats.nlink > 1 && options.allowHardLinks !== true) {
      throw new ConfinementError(
        `it is a hard link (the file has ${stats.nlink} names, which may lie outside the root; set allowHardLinks to accept them)`,
      );
    }
    return handle;
  } catch (thrown) {
    await handle.close();
    throw thrown;
  }
}

/** Deletes `real` (inside `realRoot`) without following a link swapped into its path. */
export async function unlinkBeneath(realRoot: string, real: string): Promise<void> {
  if (!FD_DIR) return unlink(real);
  const parent = await openParent(realRoot, real, false);
  try {
    await unlink(path.join(FD_DIR, String(parent.fd), path.basename(real)));
  } finally {
    await parent.close();
  }
}

async function openByDescriptors(
  realRoot: string,
  real: string,
  flags: number,
  options: BeneathOptions,
): Promise<FileHandle> {
  const parent = await openParent(realRoot, real, options.createParents === true);
  try {
    return await open(
      path.join(FD_DIR, String(parent.fd), path.basename(real)),
      flags | NOFOLLOW,
      0o666,
    );
  } catch (thrown) {
    // ELOOP: the file itself was replaced by a symbolic link.
    if ((thrown as NodeJS.ErrnoException).code === "ELOOP") {
      throw new ConfinementError("it was replaced by a symbolic link while it was being opened");
    }
    throw thrown;
  } finally {
    await parent.close();
  }
}

/**
 * Lists the folder `real` (inside `realRoot`): on Linux reached from the root one name at a
 * time, never through a link, so a folder swapped for a link during a walk is not listed.
 */
export async function listBeneath(realRoot: string, real: string): Promise<Dirent[]> {
  if (!FD_DIR) return readdir(real, { withFileTypes: true });
  if (!within(realRoot, real)) throw new ConfinementError("it is not inside the root folder");
  const rel = path.relative(realRoot, real);
  const dir = await openDescending(realRoot, rel === "" ? [] : rel.split(path.sep), false);
  try {
    return await readdir(path.join(FD_DIR, String(dir.fd)), { withFileTypes: true });
  } finally {
    await dir.close();
  }
}

/** The folder holding `real`, reached from the root one name at a time, never through a link. */
async function openParent(realRoot: string, real: string, create: boolean): Promise<FileHandle> {
  const rel = path.relative(realRoot, real);
  if (rel === "" || !within(realRoot, real)) {
    throw new ConfinementError("it is not a file inside the root folder");
  }
  return openDescending(realRoot, rel.split(path.sep).slice(0, -1), create);
}

async function openDescending(
  realRoot: string,
  names: string[],
  create: boolean,
): Promise<FileHandle> {
  let dir = await open(realRoot, constants.O_RDONLY | DIRECTORY);
  try {
    for (const name of names) {
      const at = path.join(FD_DIR, String(dir.fd), name);
      if (create) {
        await mkdir(at).catch((thrown: NodeJS.ErrnoException) => {
          if (thrown.code !== "EEXIST") throw thrown;
        });
      }
      let next: FileHandle;
      try {
        next = await open(at, constants.O_RDONLY | DIRECTORY | NOFOLLOW);
      } catch (thrown) {
        const code = (thrown as NodeJS.ErrnoException).code;
        if (code === "ELOOP" || code === "ENOTDIR") throw new ConfinementError(SWAPPED);
        throw thrown;
      }
      await dir.close();
      dir = next;
    }
    return dir;
  } catch (thrown) {
    await dir.close();
    throw thrown;
  }
}

/**
 * Without /proc: open by path, then resolve the path again and compare device and inode, so a
 * file reached through a link swapped in for the open is refused before it is read or written.
 * (A swap can still make O_CREAT create an empty file outside; nothing is written to it.)
 */
async function openThenVerify(
  realRoot: string,
  real: string,
  flags: number,
  options: BeneathOptions,
): Promise<FileHandle> {
  if (options.createParents === true) await mkdir(path.dirname(real), { recursive: true });
  const handle = await open(real, flags | NOFOLLOW, 0o666);
  try {
    const opened = await handle.stat();
    const again = await realpath(real).catch(() => undefined);
    const seen = again === undefined ? undefined : await stat(again).catch(() => undefined);
    if (
      again === undefined ||
      !within(realRoot, again) ||
      seen === undefined ||
      seen.dev !== opened.dev ||
      seen.ino !== opened.ino
    ) {
      throw new ConfinementError(SWAPPED);
    }
    return handle;
  } catch (thrown) {
    await handle.close();
    throw thrown;
  }
}
