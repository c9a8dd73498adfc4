// Offsets under concurrent writers: four processes append to one run at the same time.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { sqliteStore } from "../src/index.js";
import { stepCheckpoint } from "../src/test-fixtures.js";
import { startFixture } from "./processes.js";

const dir = mkdtempSync(join(tmpdir(), "toolnexus-events-writers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const WRITERS = 4;
const BATCHES = 50;

it(`${WRITERS} processes append ${BATCHES} batches each to one run at once: offsets 1..n, no gap, no repeat, each process's events in its order`, {
  timeout: 120_000,
}, async () => {
  const path = join(dir, "writers.db");
  const store = sqliteStore({ path });
  const lease = store.start(stepCheckpoint("run_1"), "w1", 600_000);
  const writers = Array.from({ length: WRITERS }, () =>
    startFixture("event-writer.mjs", [path, JSON.stringify(lease), String(BATCHES)]),
  );
  await Promise.all(writers.map((w) => w.line((v: { ready?: boolean }) => v.ready === true)));
  for (const writer of writers) writer.send("go");
  const reports = await Promise.all(
    writers.map((w) => w.line<{ pid: number; offsets: number[] }>((v) => Array.isArray(v.offsets))),
  );
  for (const writer of writers) expect(await writer.exited, writer.stderr()).toBe(0);

  const events = [...store.readEvents("run_1", 0), ...store.readEvents("run_1", 1000)];
  const total = 1 + WRITERS * BATCHES * 2;
  expect(events.map((e) => e.offset)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
  for (const { pid, offsets } of reports) {
    const mine = events.filter((e) => e.data.callId === `p${pid}`);
    expect(mine.map((e) => e.data.progress)).toEqual(
      Array.from({ length: BATCHES * 2 }, (_, i) => i),
    );
    // Each append returned the offset of its own batch's last event.
    expect(offsets).toEqual(mine.filter((_, i) => i % 2 === 1).map((e) => e.offset));
  }
  store.close();
});
