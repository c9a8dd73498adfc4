// How the store's client library was chosen (not a test, not run by `bench`): `pg` against
// `postgres` (porsager) on the store's two hot transactions, a claim and an answer, 2,000 each,
// one and eight at a time, five rounds alternating which library goes first.
//
// `postgres` is not a dependency of this package (the store uses `pg`); to run this again,
// install it in a scratch directory and point POSTGRES_JS at it:
//   npm install --prefix /tmp/postgres-js postgres@3.4.9
//   POSTGRES_JS=/tmp/postgres-js/node_modules/postgres/src/index.js node bench/clients.mjs [n=2000]
// (DATABASE_URL picks a server, else a throwaway local one is started.)
import { createHash } from "node:crypto";
import pg from "pg";
import { startServer } from "./server.mjs";

let postgres;
try {
  ({ default: postgres } = await import(process.env.POSTGRES_JS ?? "postgres"));
} catch {
  console.error("bench/clients.mjs needs the `postgres` package: see the top of this file");
  process.exit(1);
}
const server = process.env.DATABASE_URL ? undefined : await startServer();
const url = process.env.DATABASE_URL ?? server.url;
const N = Number(process.argv[2] ?? 2000);
const key = (s) => createHash("sha256").update(s).digest();
const checkpoint = JSON.stringify({
  messages: Array.from({ length: 8 }, (_, i) => ({
    role: "user",
    content: `message ${i} `.repeat(20),
  })),
});

async function setup() {
  const c = new pg.Client(url);
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS cmp CASCADE; CREATE SCHEMA cmp;
    CREATE TABLE cmp.runs (run_key bytea PRIMARY KEY, run_id text NOT NULL, state text NOT NULL,
      owner text, token int NOT NULL DEFAULT 0, ready_ms bigint, lease_ms bigint, updated_ms bigint,
      checkpoint_json text);
    CREATE INDEX ON cmp.runs (ready_ms) WHERE state = 'ready';
    CREATE TABLE cmp.requests (request_key bytea NOT NULL, run_key bytea NOT NULL REFERENCES cmp.runs ON DELETE CASCADE,
      halt_no bigint NOT NULL, state text NOT NULL, answer_json text, answered_ms bigint,
      PRIMARY KEY (request_key, run_key));
    CREATE TABLE cmp.journal (seq bigserial PRIMARY KEY, run_key bytea NOT NULL, json text NOT NULL);
    CREATE INDEX ON cmp.journal (run_key, seq);`);
  return c;
}

async function fill(c, n) {
  await c.query("TRUNCATE cmp.runs, cmp.requests, cmp.journal");
  const now = Date.now();
  for (let i = 0; i < n; i += 500) {
    const ids = Array.from({ length: Math.min(500, n - i) }, (_, j) => `run_${i + j}`);
    await c.query(
      `INSERT INTO cmp.runs (run_key, run_id, state, ready_ms, checkpoint_json, updated_ms)
       SELECT k, id, 'waiting', NULL, $3, $4 FROM unnest($1::bytea[], $2::text[]) AS t(k, id)`,
      [ids.map(key), ids, checkpoint, now],
    );
    await c.query(
      `INSERT INTO cmp.requests (request_key, run_key, halt_no, state)
       SELECT rk, k, 1, 'waiting' FROM unnest($1::bytea[], $2::bytea[]) AS t(rk, k)`,
      [ids.map((id) => key(`req_${id}`)), ids.map(key)],
    );
  }
}

const SQL = {
  target: `SELECT run_key, state FROM cmp.requests WHERE request_key = $1 ORDER BY halt_no DESC LIMIT 1`,
  lockRun: `SELECT state FROM cmp.runs WHERE run_key = $1 FOR NO KEY UPDATE`,
  record: `UPDATE cmp.requests SET state = 'answered', answer_json = $1, answered_ms = $2 WHERE request_key = $3 AND run_key = $4 AND state = 'waiting'`,
  wake: `UPDATE cmp.runs SET state = CASE WHEN state = 'waiting' THEN 'ready' ELSE state END, ready_ms = $2, updated_ms = $2 WHERE run_key = $1`,
  pick: `SELECT run_key, token, checkpoint_json FROM cmp.runs WHERE state = 'ready' AND ready_ms <= $1 ORDER BY ready_ms LIMIT 1 FOR UPDATE SKIP LOCKED`,
  journalOf: `SELECT json FROM cmp.journal WHERE run_key = $1 ORDER BY seq`,
  answersOf: `SELECT request_key, answer_json FROM cmp.requests WHERE run_key = $1 AND state = 'answered'`,
  take: `UPDATE cmp.runs SET state = 'running', owner = $2, token = token + 1, lease_ms = $3, ready_ms = NULL, updated_ms = $4 WHERE run_key = $1`,
};

function pgImpl(pool) {
  const q = (client, name, values) => client.query({ name, text: SQL[name], values });
  return {
    async answer(i) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const now = Date.now();
        const rk = key(`req_run_${i}`);
        const { rows } = await q(client, "target", [rk]);
        await q(client, "lockRun", [rows[0].run_key]);
        await q(client, "record", [
          JSON.stringify({ id: `req_run_${i}`, ok: true }),
          now,
          rk,
          rows[0].run_key,
        ]);
        await q(client, "wake", [rows[0].run_key, now]);
        await client.query("COMMIT");
      } catch (e) {
        await client.query("ROLLBACK").catch(() => {});
        throw e;
      } finally {
        client.release();
      }
    },
    async claim() {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const now = Date.now();
        const { rows } = await q(client, "pick", [now]);
        if (rows.length === 0) {
          await client.query("COMMIT");
          return false;
        }
        const k = rows[0].run_key;
        await q(client, "journalOf", [k]);
        await q(client, "answersOf", [k]);
        JSON.parse(rows[0].checkpoint_json);
        await q(client, "take", [k, "w1", now + 30000, now]);
        await client.query("COMMIT");
        return true;
      } catch (e) {
        await client.query("ROLLBACK").catch(() => {});
        throw e;
      } finally {
        client.release();
      }
    },
    end: () => pool.end(),
  };
}

function postgresImpl(sql) {
  return {
    async answer(i) {
      await sql.begin(async (tx) => {
        const now = Date.now();
        const rk = key(`req_run_${i}`);
        const rows = await tx.unsafe(SQL.target, [rk], { prepare: true });
        await tx.unsafe(SQL.lockRun, [rows[0].run_key], { prepare: true });
        await tx.unsafe(
          SQL.record,
          [JSON.stringify({ id: `req_run_${i}`, ok: true }), now, rk, rows[0].run_key],
          { prepare: true },
        );
        await tx.unsafe(SQL.wake, [rows[0].run_key, now], { prepare: true });
      });
    },
    async claim() {
      return sql.begin(async (tx) => {
        const now = Date.now();
        const rows = await tx.unsafe(SQL.pick, [now], { prepare: true });
        if (rows.length === 0) return false;
        const k = rows[0].run_key;
        await tx.unsafe(SQL.journalOf, [k], { prepare: true });
        await tx.unsafe(SQL.answersOf, [k], { prepare: true });
        JSON.parse(rows[0].checkpoint_json);
        await tx.unsafe(SQL.take, [k, "w1", now + 30000, now], { prepare: true });
        return true;
      });
    },
    end: () => sql.end(),
  };
}

async function timeIt(label, concurrency, fn) {
  let next = 0;
  const lat = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const i = next++;
        if (i >= N) return;
        const t = performance.now();
        await fn(i);
        lat.push(performance.now() - t);
      }
    }),
  );
  const s = (performance.now() - started) / 1000;
  lat.sort((a, b) => a - b);
  const p = (q) => lat[Math.min(lat.length - 1, Math.floor(q * lat.length))].toFixed(2);
  console.log(
    `${label.padEnd(34)} ${(N / s).toFixed(0).padStart(6)}/s  p50 ${p(0.5)} ms  p99 ${p(0.99)} ms`,
  );
  return N / s;
}

const admin = await setup();
const all = {};
for (const round of [1, 2, 3, 4, 5]) {
  const order = round % 2 === 1 ? ["pg", "postgres"] : ["postgres", "pg"];
  for (const lib of order) {
    for (const concurrency of [1, 8]) {
      await fill(admin, N);
      const impl =
        lib === "pg"
          ? pgImpl(new pg.Pool({ connectionString: url, max: concurrency }))
          : postgresImpl(postgres(url, { max: concurrency, onnotice: () => {} }));
      const a = await timeIt(`${lib} answers, concurrency ${concurrency}`, concurrency, (i) =>
        impl.answer(i),
      );
      const c = await timeIt(`${lib} claims, concurrency ${concurrency}`, concurrency, () =>
        impl.claim(),
      );
      await impl.end();
      const label = `${lib} c${concurrency}`;
      // The first round warms the server up; it does not count.
      if (round > 1) all[label] = [...(all[label] ?? []), { answers: a, claims: c }];
    }
  }
}
const med = (xs) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)];
for (const [k, v] of Object.entries(all))
  console.log(
    `median of ${v.length}: ${k.padEnd(14)} answers ${med(v.map((x) => x.answers)).toFixed(0)}/s, claims ${med(v.map((x) => x.claims)).toFixed(0)}/s`,
  );
await admin.query("DROP SCHEMA cmp CASCADE");
await admin.end();
server?.stop();
