import { createServer } from "node:net";
import { inspect } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDatabase, LIMITED_USER, PASSWORD, PASSWORD_USER } from "../test/cluster.js";
import { type PostgresStore, postgresStore } from "./index.js";

const cluster = inject("pg");
const WRONG = "wrong-PASSWORD-abc";
let database: string;
const stores: PostgresStore[] = [];
const open = (connectionString: string, schema = "errors") => {
  // Unreachable servers are tried again for a second only: these tests read the final error.
  const store = postgresStore(
    { connectionString },
    { schema, connectTimeoutMs: 5000, retryTimeoutMs: 1000 },
  );
  stores.push(store);
  return store;
};

beforeAll(async () => {
  const url = await createDatabase(cluster, "errors");
  database = url.slice(url.lastIndexOf("/") + 1);
});
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
});

/** A port nothing listens on. */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 1));
    });
  });

const failure = async (action: () => Promise<unknown>) => {
  try {
    await action();
  } catch (error) {
    return error as Error & { code: string };
  }
  return expect.unreachable("expected the call to fail");
};

/** Nothing anywhere in the error (message, stack, causes, fields) shows a password. */
function expectNoSecrets(error: unknown) {
  const shown = `${inspect(error, { depth: 10 })}${JSON.stringify(error)}${String(error)}`;
  for (const secret of [PASSWORD, WRONG, encodeURIComponent(PASSWORD)]) {
    expect(shown).not.toContain(secret);
  }
}

const urlFor = (user: string, password: string, port = cluster.port, db = database) =>
  `postgres://${user}:${password}@127.0.0.1:${port}/${db}`;

describe("errors name what to fix, never the password", () => {
  it("the server cannot be reached: host and port", async () => {
    const port = await closedPort();
    const store = open(urlFor(PASSWORD_USER, PASSWORD, port));
    const error = await failure(() => store.getRun("run_1"));
    expect(error).toMatchObject({
      name: "PostgresStoreError",
      code: "store_connect",
      target: `${PASSWORD_USER}@127.0.0.1:${port}/${database}`,
      schema: "errors",
    });
    expect(error.message).toContain(`cannot connect to PostgreSQL at 127.0.0.1:${port}`);
    expect(error.message).toContain("connection refused");
    expect(error.message).toContain("check the host and port");
    expectNoSecrets(error);
  });

  it("a host name that does not resolve", async () => {
    const store = open(`postgres://${PASSWORD_USER}:${PASSWORD}@no-such-host.invalid:5432/x`);
    const error = await failure(() => store.getRun("run_1"));
    expect(error).toMatchObject({ code: "store_connect" });
    expect(error.message).toContain('"no-such-host.invalid" does not resolve');
    expectNoSecrets(error);
  });

  it("a wrong password: the user, and to check the credentials", async () => {
    const store = open(urlFor(PASSWORD_USER, WRONG));
    const error = await failure(() => store.answer({ id: "r1", ok: true }));
    expect(error).toMatchObject({ name: "PostgresStoreError", code: "store_auth" });
    expect(error.message).toContain(
      `PostgreSQL at 127.0.0.1:${cluster.port} refused the password of user "${PASSWORD_USER}"`,
    );
    expect(error.message).toContain("check the user name and password");
    expectNoSecrets(error);
  });

  it("an unknown role, and a database that does not exist", async () => {
    const role = await failure(() => open(urlFor("nobody_here", PASSWORD)).getRun("r"));
    expect(role).toMatchObject({ code: "store_auth" });
    expect(role.message).toContain('role "nobody_here" does not exist');
    expectNoSecrets(role);
    const db = await failure(() =>
      open(urlFor(PASSWORD_USER, PASSWORD, cluster.port, "no_such_db")).getRun("r"),
    );
    expect(db).toMatchObject({ code: "store_connect" });
    expect(db.message).toContain('has no database "no_such_db"');
    expectNoSecrets(db);
  });

  it("the right password works", async () => {
    const store = open(urlFor(PASSWORD_USER, PASSWORD), "with_password");
    expect(await store.getRun("run_1")).toBeUndefined();
  });

  it("missing CREATE privilege: which grant to give, or to migrate as the owner", async () => {
    const url = `postgres://${LIMITED_USER}@127.0.0.1:${cluster.port}/${database}`;
    const store = open(url, "not_allowed");
    const error = await failure(() => store.getRun("run_1"));
    expect(error).toMatchObject({ name: "PostgresStoreError", code: "store_permission" });
    expect(error.message).toContain(`user "${LIMITED_USER}" lacks a privilege`);
    expect(error.message).toContain(`GRANT CREATE ON DATABASE "${database}"`);
    expect(error.message).toContain("run the store's migrate() once as the schema's owner");

    // The schema exists, but the user may not create tables in it.
    const admin = new pg.Client(urlFor(PASSWORD_USER, PASSWORD));
    await admin.connect();
    await admin.query("CREATE SCHEMA owned_elsewhere");
    await admin.query(`GRANT USAGE ON SCHEMA owned_elsewhere TO ${LIMITED_USER}`);
    await admin.end();
    const inSchema = await failure(() => open(url, "owned_elsewhere").migrate());
    expect(inSchema).toMatchObject({ code: "store_permission" });
    expect(inSchema.message).toContain(
      `GRANT CREATE ON SCHEMA "owned_elsewhere" TO "${LIMITED_USER}"`,
    );
  });

  it("background errors (the LISTEN connection) reach onError, without the password", async () => {
    const events: unknown[] = [];
    const store = postgresStore(
      { connectionString: urlFor(PASSWORD_USER, WRONG) },
      { schema: "errors", onError: (error) => events.push(error) },
    );
    stores.push(store);
    const unsubscribe = store.subscribe(() => {});
    for (let i = 0; i < 100 && events.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    unsubscribe();
    expect(events[0]).toMatchObject({ code: "store_auth" });
    for (const event of events) expectNoSecrets(event);
  });

  it("a connection string that is not a URL never echoes its password", async () => {
    const store = open(`postgres://${PASSWORD_USER}:${PASSWORD}@[not-a-host/db`);
    const error = await failure(() => store.getRun("run_1"));
    expectNoSecrets(error);
  });

  it("a keyword/value string is refused at once, saying to give a URL, without its password", () => {
    const text = `host=127.0.0.1 port=${cluster.port} dbname=${database} user=${PASSWORD_USER} password=${PASSWORD}`;
    let thrown: unknown;
    try {
      postgresStore({ connectionString: text });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TypeError);
    expect((thrown as Error).message).toMatch(/must be a URL \(postgres:\/\/user:password@host/);
    expectNoSecrets(thrown);
    // A URL, and a socket path, are still taken.
    const url = open(
      `postgres://${PASSWORD_USER}:${PASSWORD}@127.0.0.1:${cluster.port}/${database}`,
    );
    expect(url).toBeDefined();
  });
});
