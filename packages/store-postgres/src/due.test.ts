// Reminders on PostgreSQL: two stores (two pools, as two worker processes have) take the due
// timers of many requests at the same moment, over and over; every timer is handed out exactly
// once, and the `timers` table says who fired each.
import type { DueTimer } from "@toolnexus/core";
import { sampleCheckpoint } from "@toolnexus/core/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDatabase } from "../test/cluster.js";
import { type PostgresStore, postgresStore } from "./index.js";

let url: string;
let admin: pg.Client;
const stores: PostgresStore[] = [];
const open = (schema: string) => {
  const store = postgresStore({ connectionString: url }, { schema });
  stores.push(store);
  return store;
};

beforeAll(async () => {
  url = await createDatabase(inject("pg"), "due");
  admin = new pg.Client(url);
  await admin.connect();
});
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
  await admin.end();
});

describe("claimDue across two stores", () => {
  it("hands each of 60 due timers to exactly one of two racing stores", async () => {
    const a = open("due_race");
    const b = open("due_race");
    const past = new Date(Date.now() - 60_000).toISOString();
    for (let run = 0; run < 4; run++) {
      const ids = Array.from({ length: 5 }, (_, i) => `q_${run}_${i}`);
      const checkpoint = sampleCheckpoint({ runId: `run_${run}`, pending: ids });
      for (const call of checkpoint.pending) {
        call.timers = [
          { kind: "reminder", at: past },
          { kind: "reminder", at: past },
          { kind: "escalation", at: past, to: "leads" },
        ];
      }
      await a.halt(checkpoint);
    }
    const taken: { by: string; due: DueTimer }[] = [];
    // Small batches, so the two take turns over many rounds.
    for (let round = 0; round < 40; round++) {
      const [fromA, fromB] = await Promise.all([
        a.claimDue({ now: Date.now(), owner: "a", limit: 3 }),
        b.claimDue({ now: Date.now(), owner: "b", limit: 3 }),
      ]);
      for (const due of fromA) taken.push({ by: "a", due });
      for (const due of fromB) taken.push({ by: "b", due });
      if (fromA.length === 0 && fromB.length === 0) break;
    }
    const keys = taken.map(({ due }) => `${due.requestId}#${due.index}`);
    expect(keys).toHaveLength(60);
    expect(new Set(keys).size).toBe(60);
    const { rows } = await admin.query<{ fired_by: string; n: number }>(
      "SELECT fired_by, count(*)::int AS n FROM due_race.timers GROUP BY fired_by ORDER BY 1",
    );
    const counted = Object.fromEntries(rows.map((row) => [row.fired_by, row.n]));
    expect(counted.a ?? 0).toBe(taken.filter((t) => t.by === "a").length);
    expect(counted.b ?? 0).toBe(taken.filter((t) => t.by === "b").length);
    // Every escalated request reads re-addressed, whichever store escalated it.
    const request = await b.getRequest("q_3_4");
    expect(request?.request.data?.to).toBe("leads");
  });

  it("a request jsonb cannot hold (a NUL in its prompt) keeps its timers and never blocks claimDue", async () => {
    const store = open("due_nul");
    const past = new Date(Date.now() - 1000).toISOString();
    const checkpoint = sampleCheckpoint({
      runId: "run_nul",
      pending: [
        { id: "q_nul", prompt: "ok\u0000?" },
        { id: "q_fine", prompt: "fine?" },
      ],
    });
    for (const call of checkpoint.pending) {
      call.timers = [
        { kind: "reminder", at: past },
        { kind: "escalation", at: past, to: "leads" },
      ];
    }
    // A request whose own data has the separator's neighbours changes nothing either.
    checkpoint.pending[1]!.request.data = { note: "a\nb", __timers: [1] };
    await store.halt(checkpoint);
    expect((await store.getRequest("q_nul"))?.request).toEqual(checkpoint.pending[0]!.request);
    expect((await store.getRequest("q_fine"))?.request).toEqual(checkpoint.pending[1]!.request);
    const due = await store.claimDue({ now: Date.now(), owner: "w" });
    expect(due.map((d) => `${d.requestId}:${d.kind}`).sort()).toEqual([
      "q_fine:escalation",
      "q_fine:reminder",
      "q_nul:escalation",
      "q_nul:reminder",
    ]);
    const escalated = due.find((d) => d.requestId === "q_nul" && d.kind === "escalation");
    expect(escalated?.request).toMatchObject({ prompt: "ok\u0000?", data: { to: "leads" } });
    expect((await store.getRequest("q_fine"))?.request.data).toEqual({
      note: "a\nb",
      __timers: [1],
      to: "leads",
    });
    expect(await store.claimDue({ now: Date.now(), owner: "w" })).toEqual([]);
  });
});
