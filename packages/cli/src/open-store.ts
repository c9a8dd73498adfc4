import { existsSync, statSync } from "node:fs";
import type { RunStore } from "@toolnexus/core";
import { CliError, usage } from "./cli-error.js";
import { EXIT } from "./exit-codes.js";
import { secretsOf } from "./secrets.js";

/** The environment variable holding a PostgreSQL connection string. */
export const DATABASE_URL_ENV = "TOOLNEXUS_DATABASE_URL";
/** The environment variable naming the PostgreSQL schema (default `toolnexus`). */
export const SCHEMA_ENV = "TOOLNEXUS_SCHEMA";

/** A store the command opened, with what it must never print and how to close it. */
export interface OpenedStore {
  store: RunStore;
  /** What the store is, for messages: a file path, or `user@host:port/db` (never a password). */
  label: string;
  kind: "sqlite" | "postgres";
  close(): Promise<void>;
}

/** Where the store is, from the command line and the environment, before opening it. */
export interface StoreChoice {
  kind: "sqlite" | "postgres";
  /** The SQLite path, or the connection string (secret). */
  target: string;
  schema?: string;
  /** Texts the output must never contain. */
  secrets: string[];
}

const POSTGRES_URL = /^postgres(ql)?:\/\//i;
/** A libpq keyword/value connection string (`host=db dbname=runs …`), not a URL. */
const KEY_VALUE = /^\s*[a-z_]+\s*=/i;

/**
 * Decides which store to open: `--store <file>` is a SQLite file; without `--store`, the
 * connection string in `TOOLNEXUS_DATABASE_URL`, a `postgres://` URL (a key=value string is
 * refused: the store's driver reads URLs only). A connection string on the command line is
 * refused (shell history and `ps` would keep its password): put it in the environment.
 */
export function chooseStore(
  option: string | undefined,
  schema: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): StoreChoice {
  if (option !== undefined) {
    if (POSTGRES_URL.test(option) || /\bpassword\s*=/i.test(option)) {
      throw new CliError(
        "secret_on_command_line",
        `--store takes a SQLite file; a PostgreSQL connection string goes in the environment (${DATABASE_URL_ENV}), where shell history and ps do not keep its password. Run: export ${DATABASE_URL_ENV}='postgres://…' and leave --store out`,
        EXIT.usage,
      );
    }
    if (option === "") throw usage("--store needs a SQLite file path");
    return { kind: "sqlite", target: option, secrets: [] };
  }
  const url = env[DATABASE_URL_ENV];
  if (url !== undefined && url !== "") {
    if (KEY_VALUE.test(url)) {
      // The store's driver (node-postgres) reads URLs only: a key=value string would go to a
      // host it never names, and fail as a host that does not resolve.
      throw new CliError(
        "unsupported_connection_string",
        `${DATABASE_URL_ENV} holds a key=value connection string (host=… dbname=…), which the command does not support: give it as a URL, postgres://user:password@host:5432/database (percent-encode the password's special characters)`,
        EXIT.usage,
      );
    }
    const choice: StoreChoice = { kind: "postgres", target: url, secrets: secretsOf(url) };
    const chosenSchema = schema ?? env[SCHEMA_ENV];
    if (chosenSchema !== undefined && chosenSchema !== "") choice.schema = chosenSchema;
    return choice;
  }
  throw usage(
    `no store given: pass --store ./runs.db (a SQLite file) or set ${DATABASE_URL_ENV} to a PostgreSQL connection string`,
  );
}

/**
 * Opens the chosen store, loading only its package. A missing SQLite file is an error: the
 * command never creates one.
 */
export async function openStore(choice: StoreChoice): Promise<OpenedStore> {
  if (choice.kind === "sqlite") {
    const path = choice.target;
    if (path !== ":memory:" && (!existsSync(path) || !statSync(path).isFile())) {
      throw new CliError(
        "store_missing",
        `no toolnexus store at "${path}": check the path (the command never creates a store)`,
        EXIT.store,
      );
    }
    const { sqliteStore } = await import("@toolnexus/store-sqlite");
    const store = sqliteStore({ path });
    return {
      store,
      label: path,
      kind: "sqlite",
      close: async () => store.close(),
    };
  }
  const { postgresStore } = await import("@toolnexus/store-postgres");
  const store = postgresStore(
    { connectionString: choice.target },
    {
      ...(choice.schema === undefined ? {} : { schema: choice.schema }),
      // An operator's command fails fast rather than waiting out a worker's 30 s of retries.
      poolSize: 2,
      connectTimeoutMs: 5_000,
      retryTimeoutMs: 2_000,
    },
  );
  const target = (JSON.parse(JSON.stringify(store)) as { target?: string }).target ?? "PostgreSQL";
  return {
    store,
    label: `${target} (schema ${store.schema})`,
    kind: "postgres",
    close: () => store.close(),
  };
}
