export type { PostgresStoreErrorCode } from "./errors.js";
export { PostgresStoreError } from "./errors.js";
export { SCHEMA_VERSION } from "./schema.js";
export type { PostgresConnection, PostgresStore, PostgresStoreOptions } from "./store.js";
export { postgresStore } from "./store.js";
