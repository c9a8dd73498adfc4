// DBOS in a test process: launched on a fresh system database of the shared cluster (DBOS
// creates and migrates it), shut down after the file. DBOS is one per process, so each test file
// launches it once, after registering its agents.
import { DBOS, DBOSClient } from "@dbos-inc/dbos-sdk";
import type { AwaitedRequest } from "@toolnexus/core";
import { inject } from "vitest";
import { type DbosMessenger, waitingRequests } from "../src/index.js";

/** A system database URL on the test cluster that no other test uses. */
export function freshDatabase(prefix: string): string {
  const name = `${prefix}_${Math.random().toString(36).slice(2, 10)}`;
  return inject("pg").url.replace(/\/postgres$/, `/${name}`);
}

/** Launches DBOS in this process on `url` (register the workflows first). */
export async function launchDbos(url: string, name = "toolnexus-tests"): Promise<void> {
  DBOS.setConfig({
    name,
    systemDatabaseUrl: url,
    logLevel: "warn",
    applicationVersion: "tests",
    executorID: `tests-${process.pid}`,
  });
  await DBOS.launch();
}

/** A DBOSClient on `url`: what a process that does not run the workflows answers with. */
export function dbosClient(url: string, name = "toolnexus-tests"): Promise<DBOSClient> {
  return DBOSClient.create({ systemDatabaseUrl: url, applicationName: name });
}

/** Resolves once run `runId` waits for `count` requests. */
export async function waitingFor(
  via: DbosMessenger,
  runId: string,
  count = 1,
): Promise<AwaitedRequest[]> {
  for (;;) {
    const requests = await waitingRequests(via, runId, { waitSeconds: 60 });
    if (requests.length >= count) return requests;
    // Some of its questions are asked: the rest come with the next turn's calls.
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
