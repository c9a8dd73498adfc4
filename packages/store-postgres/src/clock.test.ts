import { sampleCheckpoint } from "@toolnexus/core/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDatabase } from "../test/cluster.js";
import { startFixture } from "../test/processes.js";
import { type PostgresStore, postgresStore } from "./index.js";

// Leases run out by the database's clock: a worker on a machine whose clock is wrong can neither
// take over a live lease (clock ahead) nor miss a lapsed one (clock behind).

let url: string;
const stores: PostgresStore[] = [];
beforeAll(async () => {
  url = await createDatabase(inject("pg"), "clock");
});
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
});

const TEN_MINUTES = 10 * 60_000;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Claims (by id, then any) from a child process whose clock is `skewMs` off. */
async function claimWithSkew(schema: string, skewMs: number, runId: string) {
  const child = startFixture("skewed-clock.mjs", [url, schema, String(skewMs), runId]);
  const line = await child.line<{
    clock: string;
    byId: { runId: string; reason: string } | null;
    generic: { runId: string; reason: string } | null;
  }>();
  expect(await child.exited).toBe(0);
  return line;
}

describe("leases on the database's clock", () => {
  it("a worker whose clock runs ten minutes ahead does not take over a live lease", {
    timeout: 60_000,
  }, async () => {
    const store = postgresStore({ connectionString: url }, { schema: "clock_ahead" });
    stores.push(store);
    await store.halt(sampleCheckpoint({ runId: "live", pending: ["r1"] }));
    await store.answer({ id: "r1", ok: true });
    const held = await store.claim({ owner: "honest", leaseMs: 60_000, runId: "live" });
    expect(held?.lease.token).toBe(1);

    const skewed = await claimWithSkew("clock_ahead", TEN_MINUTES, "live");
    // Its clock says the lease ran out nine minutes ago; the database says it has a minute left.
    expect(Date.parse(skewed.clock)).toBeGreaterThan(held!.lease.expiresAt + 8 * 60_000);
    expect(skewed.byId).toBeNull();
    expect(skewed.generic).toBeNull();
    // The honest worker still holds the run: its fenced writes go through.
    const renewed = await store.renew(held!.lease, 60_000);
    expect(renewed.token).toBe(1);
    expect((await store.getRun("live"))?.owner).toBe("honest");
  });

  it("a worker whose clock runs ten minutes behind still takes over a lease that ran out", {
    timeout: 60_000,
  }, async () => {
    const store = postgresStore({ connectionString: url }, { schema: "clock_behind" });
    stores.push(store);
    await store.halt(sampleCheckpoint({ runId: "lapsed", pending: ["r1"] }));
    await store.answer({ id: "r1", ok: true });
    const held = await store.claim({ owner: "gone", leaseMs: 200, runId: "lapsed" });
    expect(held).toBeDefined();
    // Waits for the lease to run out (by the database's clock, as the store reads it).
    for (let i = 0; i < 100 && (await store.getRun("lapsed"))?.owner === "gone"; i++) {
      const info = await store.getRun("lapsed");
      if (Date.parse(info!.leaseExpiresAt!) < Date.now() - 100) break;
      await pause(100);
    }

    const skewed = await claimWithSkew("clock_behind", -TEN_MINUTES, "no_such_run");
    expect(skewed.byId).toBeNull();
    expect(skewed.generic).toEqual({ runId: "lapsed", reason: "takeover" });
    expect((await store.getRun("lapsed"))?.owner).toBe("skewed");
  });
});
