import { runStoreContract } from "@toolnexus/core/testing";
import { beforeAll, inject } from "vitest";
import { createDatabase } from "../test/cluster.js";
import { postgresStore } from "./index.js";

let url: string;
let next = 0;
beforeAll(async () => {
  url = await createDatabase(inject("pg"), "contract");
});

// Every test gets a store on a schema of its own, created by the store on first use.
runStoreContract("postgresStore", () => {
  const store = postgresStore({ connectionString: url }, { schema: `contract_${++next}` });
  return { store, close: () => store.close() };
});
