import { fileURLToPath } from "node:url";
import { buildForWorkers } from "@toolnexus/chaos-kit/build";
import type { TestProject } from "vitest/node";
// The store's throwaway-cluster helper, shared rather than copied: one place knows how to start
// Debian's PostgreSQL as root, on a free port, with the chaos kit's watchdog behind it.
import {
  type ClusterInfo,
  destroyCluster,
  startCluster,
} from "../../store-postgres/test/cluster.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The throwaway cluster every test file shares (each file makes its own database). */
    pg: ClusterInfo;
  }
}

/**
 * Starts one throwaway PostgreSQL cluster for the test run and builds this package's source for
 * the DBOS application processes (plain Node, they cannot load TypeScript). The cluster is
 * stopped and its directory removed when the run ends, however it ends.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const building = buildForWorkers(fileURLToPath(new URL("..", import.meta.url)), [
    "@dbos-inc/dbos-sdk",
    "@toolnexus/core",
    "@toolnexus/client",
  ]);
  const cluster = await startCluster("dbos");
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    destroyCluster(cluster);
  };
  process.once("exit", stop);
  try {
    await building;
  } catch (error) {
    stop();
    throw error;
  }
  project.provide("pg", cluster);
  return () => {
    process.off("exit", stop);
    stop();
  };
}
