// Shared file helpers: open a path the way the file tools need it, with clear messages.
import { constants } from "node:fs";
import { type FileHandle, mkdir, open, stat } from "node:fs/promises";
import path from "node:path";

/** Files larger than this are not loaded whole (edit, apply_patch, grep skip or refuse them). */
export const MAX_WHOLE_FILE_BYTES = 10 * 1024 * 1024;

/** How much of a file's start is checked for NUL bytes to call it binary. */
const SNIFF_BYTES = 8_000;

/** The stats of `real`, or undefined when nothing is there. */
export async function statOf(real: string) {
  return stat(real).catch((thrown: NodeJS.ErrnoException) => {
    if (thrown.code === "ENOENT" || thrown.code === "ENOTDIR") return undefined;
    throw thrown;
  });
}

/** True when the buffer looks like binary data (a NUL byte in its first 8000 bytes). */
export function looksBinary(buf: Buffer): boolean {
  return buf.subarray(0, SNIFF_BYTES).includes(0);
}

/**
 * Writes `content` to `real` (an already confined path with its links resolved), creating the
 * parent folders. O_NOFOLLOW refuses a symbolic link swapped in at the last moment.
 */
export async function writeConfined(
  real: string,
  content: string | Buffer,
  signal?: AbortSignal,
): Promise<void> {
  await mkdir(path.dirname(real), { recursive: true });
  const flags =
    constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0);
  let handle: FileHandle | undefined;
  try {
    handle = await open(real, flags, 0o666);
    await handle.writeFile(content, { signal });
  } finally {
    await handle?.close();
  }
}

/** Reads a whole text file (already checked to be a regular file of a sane size). */
export async function readWhole(real: string, signal?: AbortSignal): Promise<Buffer> {
  const flags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0);
  const handle = await open(real, flags);
  try {
    return await handle.readFile({ signal });
  } finally {
    await handle.close();
  }
}
