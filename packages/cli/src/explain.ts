import { WebError } from "@toolnexus/web";
import { CliError } from "./cli-error.js";
import { EXIT } from "./exit-codes.js";
import { DATABASE_URL_ENV } from "./open-store.js";

const named = (error: unknown, name: string): boolean =>
  typeof error === "object" && error !== null && (error as { name?: unknown }).name === name;

/**
 * Turns what a command threw into a {@link CliError} that says what to fix, with its exit
 * code. Store errors carry no password (the stores keep it out); the output is redacted anyway.
 */
export function explain(error: unknown): CliError {
  if (error instanceof CliError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (named(error, "RunNotFoundError")) {
    return new CliError(
      "run_not_found",
      `${message}: check the id (toolnexus runs list shows the runs)`,
      EXIT.notFound,
    );
  }
  if (named(error, "SuspensionNotFoundError")) {
    return new CliError(
      "request_not_found",
      `${message}: check the id (toolnexus runs show <runId> lists a run's requests)`,
      EXIT.notFound,
    );
  }
  if (error instanceof WebError) {
    if (error.status === 404) {
      return new CliError(
        "request_not_found",
        "no such request in the store: check the id (toolnexus runs show <runId> lists a run's requests)",
        EXIT.notFound,
      );
    }
    return new CliError(error.code, error.message, EXIT.refused, error.issues ?? []);
  }
  // Matched by name, so that the command loads only the store it opens.
  if (named(error, "PostgresStoreError")) {
    const { code, target, schema } = error as { code: string; target: string; schema: string };
    const where = `${target}, schema ${schema}`;
    switch (code) {
      case "store_connect":
        return new CliError(
          code,
          `cannot reach the PostgreSQL server (${where}): ${message}. Check the host, port and database in ${DATABASE_URL_ENV}, and that the server is up`,
          EXIT.store,
        );
      case "store_auth":
        return new CliError(
          code,
          `the PostgreSQL server refused the credentials (${where}): ${message}. Check the user and password in ${DATABASE_URL_ENV} (the password is never shown)`,
          EXIT.store,
        );
      default:
        return new CliError(code, `${message} (${where})`, EXIT.store);
    }
  }
  if (named(error, "SqliteStoreError")) {
    return new CliError(String((error as { code: unknown }).code), message, EXIT.store);
  }
  if (named(error, "StoreUnsupportedError")) {
    return new CliError("store_unsupported", `${message}; upgrade the store package`, EXIT.failure);
  }
  const code =
    typeof (error as { code?: unknown })?.code === "string"
      ? String((error as { code: string }).code)
      : "internal";
  return new CliError(code, message, EXIT.failure);
}
