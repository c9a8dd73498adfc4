export type { SqliteDriverName } from "./driver.js";
export type { SqliteStoreErrorCode } from "./errors.js";
export { SqliteStoreError } from "./errors.js";
export { SCHEMA_VERSION } from "./schema.js";
export type { SqliteStore, SqliteStoreOptions } from "./store.js";
export { sqliteStore } from "./store.js";
