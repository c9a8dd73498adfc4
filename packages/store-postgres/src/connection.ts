import { createHash } from "node:crypto";
import { inspect } from "node:util";
import pg from "pg";
import { PostgresStoreError } from "./errors.js";

/** How the store reaches the server: a connection string, or a pool the application already has. */
export type ConnectionInput = { connectionString: string } | { pool: pg.Pool };

/** The server and schema a store uses, as error messages name them (never with the password). */
export interface Where {
  target: string;
  schema: string;
}

/** One statement: its text and values; with a `name` (any), it is prepared once per connection. */
export interface Statement {
  name?: string;
  text: string;
  values?: unknown[];
}

/** Runs statements on one connection (inside a transaction, for {@link Db.tx}). */
export type Run = <R extends pg.QueryResultRow = pg.QueryResultRow>(
  statement: Statement,
) => Promise<pg.QueryResult<R>>;

/** The pool with the store's error handling around it. */
export interface Db {
  readonly pool: pg.Pool;
  readonly where: Where;
  /** Strips anything secret (the password) from a text before it leaves the store. */
  scrub(text: string): string;
  /** A clear {@link PostgresStoreError} for a connection, credential or privilege problem; else the error, scrubbed. */
  translate(error: unknown): unknown;
  /** One statement in its own implicit transaction. */
  run: Run;
  /** `fn` inside BEGIN … COMMIT on one connection, rolled back when it throws. */
  tx<T>(fn: (run: Run) => Promise<T>): Promise<T>;
  /**
   * Calls `op` again, with bounded backoff, while it fails because the server is unreachable or
   * the connection broke (a restart, a killed backend, a failover). `op` must be safe to repeat:
   * `uncertain` is true once an earlier attempt may have committed (the connection broke while
   * its reply was awaited), so it can check whether its write already landed. Other errors, and
   * the last one once the time is up, are thrown.
   */
  retrying<T>(op: (uncertain: boolean) => Promise<T>): Promise<T>;
  /** Ends the pool when the store created it; leaves a pool it was given alone. */
  end(): Promise<void>;
}

/** The SHA-256 of an id (as UTF-8): the fixed-size key the tables index instead of the id itself. */
export function key(id: string): Buffer {
  return createHash("sha256").update(id).digest();
}

interface Parts {
  host: string;
  port: string;
  database: string;
  user: string;
  password?: string;
}

function parseConnectionString(connectionString: string): Partial<Parts> {
  // Not a URL. postgresStore() refuses keyword/value strings ("host=… password=…": pg reads
  // URLs only), but one is still read here, so that no password in it can reach a message.
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(connectionString)) {
    const parts: Partial<Parts> = {};
    for (const match of connectionString.matchAll(/(\w+)\s*=\s*('(?:[^'\\]|\\.)*'|\S+)/g)) {
      const value = match[2]!.replace(/^'|'$/g, "").replace(/\\(.)/g, "$1");
      const name = match[1]!.toLowerCase();
      if (name === "host" || name === "port" || name === "user" || name === "password") {
        parts[name] = value;
      } else if (name === "dbname") parts.database = value;
    }
    return parts;
  }
  try {
    const url = new URL(connectionString);
    const decode = (text: string) => {
      try {
        return decodeURIComponent(text);
      } catch {
        return text;
      }
    };
    const parts: Partial<Parts> = {};
    if (url.hostname) parts.host = decode(url.hostname);
    if (url.port) parts.port = url.port;
    if (url.username) parts.user = decode(url.username);
    if (url.password) parts.password = decode(url.password);
    const database = decode(url.pathname.replace(/^\//, ""));
    if (database) parts.database = database;
    const host = url.searchParams.get("host");
    if (host) parts.host = host;
    return parts;
  } catch {
    // A string URL cannot parse: still find a password between "://user:" and "@".
    const match = /^[a-z][a-z0-9+.-]*:\/\/[^:/@]*:([^@]*)@/i.exec(connectionString);
    return match ? { password: match[1]! } : {};
  }
}

/** What error messages may say about the server: user, host, port and database, from the input or pg's defaults. */
function describe(input: ConnectionInput): { parts: Parts; secrets: string[] } {
  let found: Partial<Parts> = {};
  const secrets: string[] = [];
  if ("connectionString" in input) {
    found = parseConnectionString(input.connectionString);
  } else {
    const options = (input.pool as unknown as { options?: Record<string, unknown> }).options ?? {};
    if (typeof options.connectionString === "string") {
      found = parseConnectionString(options.connectionString);
    }
    for (const name of ["host", "port", "database", "user"] as const) {
      const value = options[name];
      if (typeof value === "string" || typeof value === "number") found[name] = String(value);
    }
    if (typeof options.password === "string") secrets.push(options.password);
  }
  if (found.password) secrets.push(found.password);
  const env = process.env;
  if (env.PGPASSWORD) secrets.push(env.PGPASSWORD);
  const user = found.user ?? env.PGUSER ?? env.USER ?? "postgres";
  const parts: Parts = {
    host: found.host ?? env.PGHOST ?? "localhost",
    port: found.port ?? env.PGPORT ?? "5432",
    database: found.database ?? env.PGDATABASE ?? user,
    user,
  };
  // The password as written in the URL (percent-encoded) too.
  for (const secret of [...secrets]) {
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) secrets.push(encoded);
  }
  return { parts, secrets: secrets.filter((s) => s.length > 0) };
}

const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
  "ENOENT",
]);

/** True for an error that means the connection (not the statement) failed. */
export function isConnectionError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const e = error as { code?: unknown; message?: unknown; errors?: unknown };
  const code = typeof e.code === "string" ? e.code : "";
  if (CONNECTION_CODES.has(code)) return true;
  // SQLSTATE class 08 (connection exception) and 57P0x (the server shutting down or starting).
  if (/^08/.test(code) || /^57P0[1-4]$/.test(code) || code === "53300") return true;
  const message = typeof e.message === "string" ? e.message : "";
  if (
    /Connection terminated|connection timeout|timeout expired|Client has encountered a connection error|not queryable/i.test(
      message,
    )
  ) {
    return true;
  }
  return Array.isArray(e.errors) && e.errors.some(isConnectionError);
}

/**
 * The store's own pool. Its options keep the connection string (with the password) where
 * neither `util.inspect` nor `JSON.stringify` looks: a non-enumerable property. The pool shows
 * itself as its server and counts only.
 */
function ownPool(
  connectionString: string,
  target: string,
  options: { poolSize: number; connectTimeoutMs: number },
): pg.Pool {
  // Its connections show themselves as the server too: pg keeps the password on each client
  // (not enumerable, but `showHidden` would list it).
  class Connection extends pg.Client {
    [inspect.custom](_depth: number, opts: object) {
      return `Client ${inspect(this.toJSON(), opts)}`;
    }
    toJSON() {
      return { target, processID: (this as unknown as { processID?: number }).processID };
    }
  }
  const pool = new pg.Pool({
    connectionString,
    max: options.poolSize,
    connectionTimeoutMillis: options.connectTimeoutMs,
    Client: Connection,
  });
  // Every connection of the store's own pool keeps an "error" listener for its whole life, also
  // while the application holds one it took from `store.pool`: the server ending it (57P01 on a
  // restart, pg_terminate_backend) must not end the process. Whoever holds it sees the failure
  // on its next query.
  pool.on("connect", (client) => {
    client.on("error", () => {});
  });
  Object.defineProperty(pool.options, "connectionString", {
    value: connectionString,
    enumerable: false,
    writable: false,
    configurable: true,
  });
  const summary = () => ({
    target,
    totalCount: pool.totalCount,
    idleCount: pool.idleCount,
    waitingCount: pool.waitingCount,
  });
  Object.defineProperty(pool, inspect.custom, {
    value: (_depth: number, opts: object) => `Pool ${inspect(summary(), opts)}`,
    enumerable: false,
  });
  Object.defineProperty(pool, "toJSON", { value: summary, enumerable: false });
  return pool;
}

/**
 * True for a connection error a retry may cure: the server restarting or failing over (57P01-03,
 * SQLSTATE class 08, refused or reset connections, too many connections), not a wrong host name.
 */
function isTransient(error: unknown): boolean {
  if (!isConnectionError(error)) return false;
  const code = (error as { code?: unknown }).code;
  if (code === "ENOTFOUND") return false;
  const errors = (error as { errors?: unknown }).errors;
  return !(Array.isArray(errors) && errors.length > 0 && !errors.some(isTransient));
}

/** True for an error raised before the statement was sent: the client was already broken. */
function neverSent(error: unknown): boolean {
  const message = (error as { message?: unknown })?.message;
  return typeof message === "string" && /is not queryable/i.test(message);
}

/** Translated errors a retry may cure, and whether the server surely did nothing (rolled back). */
const transient = new WeakMap<object, { nothingDone: boolean }>();

/**
 * Marks `error` as one a retry may cure, as a broken connection's error is marked;
 * `nothingDone` when the server surely did nothing. For tests that cut a connection at a chosen
 * moment.
 */
export function markTransient<E extends object>(error: E, nothingDone: boolean): E {
  transient.set(error, { nothingDone });
  return error;
}

const FIRST_RETRY_MS = 50;
const LAST_RETRY_MS = 1000;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Opens the pool (or wraps the given one) with translated, password-free errors. */
export function openDb(
  input: ConnectionInput,
  schema: string,
  options: {
    poolSize: number;
    connectTimeoutMs: number;
    retryTimeoutMs: number;
    onError?: (error: unknown) => void;
  },
): Db {
  const { parts, secrets } = describe(input);
  const target = `${parts.user}@${parts.host}:${parts.port}/${parts.database}`;
  const where: Where = { target, schema };
  const owned = !("pool" in input);
  const pool = "pool" in input ? input.pool : ownPool(input.connectionString, target, options);

  const scrub = (text: string): string => {
    let out = text;
    for (const secret of secrets) out = out.split(secret).join("***");
    return out;
  };

  /** The original error as a cause, or a scrubbed copy when anything in it holds a secret. */
  const safeCause = (error: unknown): unknown => {
    const shown = inspect(error, { depth: 6 });
    if (secrets.every((secret) => !shown.includes(secret))) return error;
    const copy = new Error(scrub(error instanceof Error ? error.message : String(error)));
    const code = (error as { code?: unknown })?.code;
    if (typeof code === "string") Object.assign(copy, { code });
    return copy;
  };

  const make = (
    code: ConstructorParameters<typeof PostgresStoreError>[0],
    message: string,
    cause: unknown,
  ) => new PostgresStoreError(code, where, scrub(message), { cause: safeCause(cause) });

  const translate = (error: unknown): unknown => {
    if (error instanceof PostgresStoreError) return error;
    if (typeof error !== "object" || error === null) return error;
    const e = error as { code?: unknown; message?: unknown; errors?: unknown[] };
    const code = typeof e.code === "string" ? e.code : "";
    const detail = scrub(typeof e.message === "string" ? e.message : String(error));
    const server = `${parts.host}:${parts.port}`;
    switch (code) {
      case "28P01":
        return make(
          "store_auth",
          `PostgreSQL at ${server} refused the password of user "${parts.user}" (${detail}): check the user name and password in the connection string`,
          error,
        );
      case "28000":
        return make(
          "store_auth",
          `PostgreSQL at ${server} refused user "${parts.user}" (${detail}): check that the role exists and may log in, and that pg_hba.conf allows this host, user and database`,
          error,
        );
      case "3D000":
        return make(
          "store_connect",
          `PostgreSQL at ${server} has no database "${parts.database}" (${detail}): create it (createdb "${parts.database}") or fix the database name in the connection string`,
          error,
        );
      case "42501":
        return make(
          "store_permission",
          `user "${parts.user}" lacks a privilege the toolnexus store needs in database "${parts.database}" (${detail}): grant it, e.g. GRANT CREATE ON SCHEMA "${schema}" TO "${parts.user}" (or GRANT CREATE ON DATABASE "${parts.database}" for a new schema), or run the store's migrate() once as the schema's owner`,
          error,
        );
      case "ECONNREFUSED":
        return make(
          "store_connect",
          `cannot connect to PostgreSQL at ${server}: connection refused; check the host and port in the connection string and that the server is running and accepts TCP connections there`,
          error,
        );
      case "ENOTFOUND":
      case "EAI_AGAIN":
        return make(
          "store_connect",
          `cannot connect to PostgreSQL at ${server}: the host name "${parts.host}" does not resolve; check the host in the connection string`,
          error,
        );
      case "57P03":
        return make(
          "store_connect",
          `PostgreSQL at ${server} is starting up or shutting down (${detail}); retry in a moment`,
          error,
        );
    }
    if (isConnectionError(error)) {
      const reason =
        Array.isArray(e.errors) && e.errors.length > 0 ? translate(e.errors[0]) : undefined;
      if (reason instanceof PostgresStoreError) return reason;
      return make(
        "store_connect",
        `lost or could not open the connection to PostgreSQL at ${server} (${detail}); the call may not have completed: retry it once the server is reachable`,
        error,
      );
    }
    if (error instanceof Error && secrets.some((s) => inspect(error, { depth: 6 }).includes(s))) {
      return safeCause(error);
    }
    return error;
  };

  // An idle connection the server closed (a restart, a killed backend) is dropped by the pool;
  // without a listener its "error" event would end the process. A pool the application gave us
  // gets one too: the store is what made it reach a server that may go away.
  pool.on("error", (error) => {
    try {
      options.onError?.(translate(error));
    } catch {
      // Nothing to do about a failing error handler.
    }
  });

  /** Remembers whether a retry may cure `error` (translated from `original`); returns it. */
  const classify = (original: unknown, nothingDone: boolean): unknown => {
    const translated = translate(original);
    if (isTransient(original) && typeof translated === "object" && translated !== null) {
      markTransient(translated, nothingDone || neverSent(original));
    }
    return translated;
  };

  /**
   * A connection taken from the pool, with an "error" listener while it is held: the server
   * ending it between two statements (57P01 on a restart, pg_terminate_backend) emits "error"
   * on the client, which would otherwise end the process. A broken connection is closed, not
   * returned to the pool.
   */
  const checkout = async (): Promise<{ client: pg.PoolClient; done(error?: unknown): void }> => {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw classify(error, true);
    }
    let broken: unknown;
    const onError = (error: unknown) => {
      broken ??= error;
    };
    client.on("error", onError);
    return {
      client,
      done(error) {
        if (error !== undefined && isConnectionError(error)) broken ??= error;
        client.off("error", onError);
        client.release(broken === undefined ? undefined : broken instanceof Error ? broken : true);
      },
    };
  };

  // A prepared statement's name comes from its text: stores of any schema or release sharing a
  // pool never give one name two texts (which pg refuses).
  const names = new Map<string, string>();
  const nameOf = (text: string): string => {
    let found = names.get(text);
    if (found === undefined) {
      found = `tnx_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
      names.set(text, found);
    }
    return found;
  };
  const runOn =
    (client: pg.PoolClient | pg.Pool): Run =>
    (statement) =>
      client.query(
        statement.name === undefined
          ? { text: statement.text, values: statement.values ?? [] }
          : { name: nameOf(statement.text), text: statement.text, values: statement.values ?? [] },
      ) as never;

  return {
    pool,
    where,
    scrub,
    translate,
    async run(statement) {
      const { client, done } = await checkout();
      let failed: unknown;
      try {
        return await runOn(client)(statement);
      } catch (error) {
        failed = error;
        // Sent: whether a write took effect before the connection broke is unknown.
        throw classify(error, false);
      } finally {
        done(failed);
      }
    },
    async tx(fn) {
      const { client, done } = await checkout();
      let failed: unknown;
      let committing = false;
      try {
        await client.query("BEGIN");
        const result = await fn(runOn(client));
        committing = true;
        await client.query("COMMIT");
        return result;
      } catch (error) {
        failed = error;
        if (!isConnectionError(error)) {
          try {
            await client.query("ROLLBACK");
          } catch (rollback) {
            failed = rollback;
          }
        }
        // Broken before COMMIT was sent: the server rolled the transaction back.
        throw classify(error, !committing);
      } finally {
        // A connection that failed is closed rather than handed to the next caller.
        done(failed);
      }
    },
    async retrying(op) {
      const giveUpAt = performance.now() + options.retryTimeoutMs;
      let delay = FIRST_RETRY_MS;
      let uncertain = false;
      for (;;) {
        try {
          return await op(uncertain);
        } catch (error) {
          const how =
            typeof error === "object" && error !== null ? transient.get(error) : undefined;
          if (how === undefined || performance.now() + delay > giveUpAt) throw error;
          if (!how.nothingDone) uncertain = true;
          await pause(delay);
          delay = Math.min(delay * 2, LAST_RETRY_MS);
        }
      }
    },
    async end() {
      if (owned) await pool.end();
    },
  };
}
