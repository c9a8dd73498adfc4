import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  mkdirSync,
  openSync,
  statSync,
} from "node:fs";
import { dirname, resolve } from "node:path";

/** The mode of the files the store creates: owner read and write, nothing for anyone else. */
export const DEFAULT_FILE_MODE = 0o600;

/** The folders the store creates for a file: only the owner may list or enter them. */
const FOLDER_MODE = 0o700;

/**
 * The files SQLite keeps beside a database. It creates them with the database file's own
 * permissions (its unix VFS copies them), so a 0600 database gets a 0600 `-wal` and `-shm`; a
 * copy left by a crash under an older, wider mode is narrowed like the database.
 */
const SIDE_FILES = ["-wal", "-shm", "-journal"];

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** Whether `path` names a file on disk (not `:memory:`, a temporary or a URI database). */
export function isOnDisk(path: string): boolean {
  return path !== ":memory:" && path !== "" && !path.startsWith("file:");
}

/** Checks that `mode` leaves the owner able to read and write, and grants nothing beyond 0777. */
export function checkFileMode(mode: unknown): number {
  if (
    typeof mode !== "number" ||
    !Number.isInteger(mode) ||
    mode < 0 ||
    mode > 0o777 ||
    (mode & 0o600) !== 0o600
  ) {
    throw new TypeError(
      `sqliteStore(): fileMode must be a permission mode from 0o600 to 0o777 that lets the owner read and write (got ${String(mode)})`,
    );
  }
  return mode;
}

/** Creates `folder` and its missing parents, owner-only; an existing folder is left as it is. */
function ensureFolder(folder: string): void {
  try {
    mkdirSync(folder, { recursive: true, mode: FOLDER_MODE });
  } catch (error) {
    throw new Error(
      `cannot create the folder "${folder}": ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/**
 * Removes from an existing file the permissions `mode` does not grant; never adds any. Only a
 * file this process's user owns is changed (nobody else may chmod it); others are left as found.
 */
function narrow(path: string, mode: number): void {
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(path);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return;
    throw error;
  }
  const uid = process.getuid?.();
  if (!stats.isFile() || uid === undefined || stats.uid !== uid) return;
  const current = stats.mode & 0o777;
  const narrowed = current & mode;
  if (narrowed === current) return;
  try {
    chmodSync(path, narrowed);
  } catch (error) {
    // A -wal or -shm deleted meanwhile by the last connection closing: nothing left to narrow.
    if (errorCode(error) !== "ENOENT") throw error;
  }
}

/**
 * Makes `path` ready for SQLite to open: its folder exists (created 0700 when missing), the file
 * exists with exactly `mode` when new, and an existing file and its side files grant at most
 * `mode`. SQLite itself would create the file 0644 under the usual umask, readable by every user.
 */
export function prepareFile(path: string, mode: number): void {
  ensureFolder(dirname(resolve(path)));
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_RDWR, mode);
  } catch (error) {
    if (errorCode(error) !== "EEXIST") throw error;
  }
  if (fd === undefined) {
    narrow(path, mode);
  } else {
    try {
      // Exactly `mode`: openSync's is reduced by the umask, a wider one given on purpose included.
      fchmodSync(fd, mode);
    } finally {
      closeSync(fd);
    }
  }
  for (const suffix of SIDE_FILES) narrow(path + suffix, mode);
}
