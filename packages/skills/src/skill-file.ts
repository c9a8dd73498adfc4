// Reading one SKILL.md with the size cap: the open file is checked (fstat, so a path swapped
// after the walk is checked as what is actually read) before anything is read, and the read
// stops past the cap, so a file that grows meanwhile is not read whole either.
import { constants } from "node:fs";
import { open } from "node:fs/promises";

const CHUNK = 64 * 1024;

/** The file's text, or its size when it is over `maxBytes` (nothing of it is kept). */
export type SkillFileRead = { text: string } | { tooLarge: number };

/** Reads `file` when it is a regular file of at most `maxBytes` bytes. Throws when unreadable. */
export async function readSkillFile(file: string, maxBytes: number): Promise<SkillFileRead> {
  // O_NONBLOCK: a FIFO swapped in for the file must not hang the open.
  const handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new Error("not a regular file");
    if (stats.size > maxBytes) return { tooLarge: stats.size };
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(Math.min(CHUNK, maxBytes + 1 - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      // It grew past the cap after the check.
      if (total > maxBytes) return { tooLarge: Math.max(total, stats.size) };
    }
    return { text: Buffer.concat(chunks, total).toString("utf8") };
  } finally {
    await handle.close();
  }
}
