// Token stores: in memory (one process) and in a directory of files (durable across processes,
// readable by the owner only). A host with a database implements McpTokenStore over it.
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { McpAuthRecord, McpTokenStore } from "./types.js";

/** A record may be at most this big (a token store holds tokens, never megabytes). */
const MAX_RECORD_BYTES = 64 * 1024;

/** Tokens kept in this process only: gone when it ends. */
export function memoryTokenStore(): McpTokenStore {
  const records = new Map<string, string>();
  return {
    // Kept as JSON so a caller changing the returned object changes nothing stored.
    get: (key) => {
      const text = records.get(key);
      return text === undefined ? undefined : (JSON.parse(text) as McpAuthRecord);
    },
    set: (key, record) => {
      records.set(key, JSON.stringify(record));
    },
    delete: (key) => {
      records.delete(key);
    },
  };
}

/**
 * Tokens kept in `dir`, one file per server (named by a hash of its key), written whole (a
 * temporary file renamed over the old) with mode 0600, so every process of the host sees the
 * same tokens and a crash never leaves half a file.
 */
export function fileTokenStore(dir: string): McpTokenStore {
  const path = (key: string) =>
    join(dir, `${createHash("sha256").update(key).digest("hex").slice(0, 32)}.json`);
  return {
    async get(key) {
      let text: string;
      try {
        text = await readFile(path(key), "utf8");
      } catch (thrown) {
        if ((thrown as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw thrown;
      }
      if (text.length > MAX_RECORD_BYTES) return undefined;
      try {
        const parsed = JSON.parse(text) as { key?: unknown; record?: McpAuthRecord };
        // A file of another key (a hash collision, a copied file) is not this server's.
        return parsed.key === key ? parsed.record : undefined;
      } catch {
        return undefined;
      }
    },
    async set(key, record) {
      const text = JSON.stringify({ key, record });
      if (text.length > MAX_RECORD_BYTES) {
        throw new RangeError(`fileTokenStore: a record is over ${MAX_RECORD_BYTES} bytes`);
      }
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const target = path(key);
      const temporary = `${target}.${randomBytes(6).toString("hex")}.tmp`;
      await writeFile(temporary, text, { mode: 0o600 });
      await rename(temporary, target);
    },
    async delete(key) {
      await rm(path(key), { force: true });
    },
  };
}
