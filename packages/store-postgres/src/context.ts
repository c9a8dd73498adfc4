import { createHash } from "node:crypto";
import type { Db } from "./connection.js";
import { quote } from "./schema.js";

/** What every operation of one store shares: the database, its schema, and the readiness gate. */
export interface Context {
  db: Db;
  /** The schema, quoted for SQL. */
  s: string;
  /** The NOTIFY channel workers of this schema listen on. */
  channel: string;
  /**
   * The NOTIFY channel of run events in this schema; the payload is the hex digest of the run's
   * id (its `run_key`), which always fits NOTIFY's 8000-byte payload whatever the id's length.
   */
  eventsChannel: string;
  /** Marks a statement to prepare (once per connection); the name itself is for readers. */
  name(op: string): string;
  /** Resolves once the schema is migrated (and a starting subscription listens); throws when closed. */
  ready(): Promise<void>;
}

/** The channel of a schema: `toolnexus:<schema>`, or a digest when that is too long for a name. */
export function channelOf(schema: string, prefix = "toolnexus"): string {
  const plain = `${prefix}:${schema}`;
  return plain.length <= 63
    ? plain
    : `${prefix}:${createHash("sha256").update(schema).digest("hex").slice(0, 40)}`;
}

export function makeContext(db: Db, ready: () => Promise<void>): Context {
  const schema = db.where.schema;
  return {
    db,
    s: quote(schema),
    channel: channelOf(schema),
    eventsChannel: channelOf(schema, "toolnexus-events"),
    name: (op) => op,
    ready,
  };
}
