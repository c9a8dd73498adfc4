// Shared file helpers: open a path the way the file tools need it, with clear messages.
import { constants } from "node:fs";
import { type FileHandle, stat } from "node:fs/promises";
import type { ToolResult } from "@toolnexus/core";
import { ConfinementError, openBeneath, unlinkBeneath } from "./beneath.js";
import type { Root } from "./confine.js";

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
 * Opens `real` (an already confined path with its links resolved) for reading as a regular file,
 * checking that what was opened is inside the root (see beneath.ts). O_NONBLOCK: a FIFO swapped
 * in cannot hang the open.
 */
export async function openForRead(root: Root, real: string): Promise<FileHandle> {
  const handle = await openBeneath(
    await root.real(),
    real,
    constants.O_RDONLY | (constants.O_NONBLOCK ?? 0),
    { allowHardLinks: root.allowHardLinks },
  );
  return regularOnly(handle);
}

/**
 * Writes `content` to `real` (an already confined path with its links resolved), creating the
 * parent folders inside the root. The file is truncated only once the open is verified.
 */
export async function writeConfined(
  root: Root,
  real: string,
  content: string | Buffer,
  signal?: AbortSignal,
): Promise<void> {
  const handle = await regularOnly(
    await openBeneath(
      await root.real(),
      real,
      constants.O_WRONLY | constants.O_CREAT | (constants.O_NONBLOCK ?? 0),
      { createParents: true, allowHardLinks: root.allowHardLinks },
    ),
  );
  try {
    await handle.truncate(0);
    await handle.writeFile(content, { signal });
  } finally {
    await handle.close();
  }
}

/** Reads a whole text file (already checked to be a regular file of a sane size). */
export async function readWhole(root: Root, real: string, signal?: AbortSignal): Promise<Buffer> {
  const handle = await openForRead(root, real);
  try {
    return await handle.readFile({ signal });
  } finally {
    await handle.close();
  }
}

/** Deletes a confined file without following a link swapped into its path. */
export async function deleteConfined(root: Root, real: string): Promise<void> {
  await unlinkBeneath(await root.real(), real);
}

/** A {@link ConfinementError} as `tool`'s refusal of `input`; anything else is thrown on. */
export function refusalOf(root: Root, tool: string, input: string, thrown: unknown): ToolResult {
  if (thrown instanceof ConfinementError) return root.refusal(tool, input, thrown.message);
  throw thrown;
}

async function regularOnly(handle: FileHandle): Promise<FileHandle> {
  if ((await handle.stat()).isFile()) return handle;
  await handle.close();
  throw new ConfinementError("it is not a regular file");
}
