// The ids the adapter hands DBOS, checked before DBOS reads or writes anything: what every run
// store refuses (core's checkId), and ids too large for the indexes of DBOS's system database.
import { checkId, InvalidIdError } from "@toolnexus/core";

/**
 * Most UTF-8 bytes of a run id or an answer id. DBOS keeps them in PostgreSQL btree indexes (a
 * workflow's primary key; a message's key, which joins the answer id and the run id), whose
 * entries hold at most 2,704 bytes: past that an insert fails with `index row size … exceeds
 * btree maximum`. Every id of at most MAX_STORE_ID_CHARS ASCII characters fits.
 */
export const MAX_DBOS_ID_BYTES = 1024;

/**
 * Throws core's `InvalidIdError` (`invalid_id`, naming `field`) for an id no run store keeps
 * (`checkId`: more than MAX_STORE_ID_CHARS, a NUL, an unpaired surrogate) or one of more than
 * {@link MAX_DBOS_ID_BYTES} bytes of UTF-8. Anything not a string is left to the caller.
 */
export function checkDbosId(id: unknown, field: string): void {
  checkId(id, field);
  // At most 3 bytes per UTF-16 unit: a short id cannot be too large.
  if (typeof id !== "string" || id.length * 3 <= MAX_DBOS_ID_BYTES) return;
  const bytes = Buffer.byteLength(id, "utf8");
  if (bytes > MAX_DBOS_ID_BYTES) {
    throw new InvalidIdError(
      field,
      `is ${bytes} bytes long in UTF-8, over the ${MAX_DBOS_ID_BYTES} bytes DBOS can keep in its indexes`,
    );
  }
}
