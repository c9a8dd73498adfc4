// The shared RunStore contract (the same suite the in-memory store passes), on a real file.
import { runStoreContract } from "@toolnexus/core/testing";
import { sqliteStore } from "./store.js";
import { tempDir } from "./test-fixtures.js";

runStoreContract("sqliteStore", () => {
  const tmp = tempDir();
  const store = sqliteStore({ path: tmp.file() });
  return {
    store,
    close: () => {
      store.close();
      tmp.cleanup();
    },
  };
});
