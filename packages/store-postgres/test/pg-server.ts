import { fileURLToPath } from "node:url";
import { buildForWorkers } from "@toolnexus/chaos-kit/build";
import type { TestProject } from "vitest/node";
import { type ClusterInfo, destroyCluster, startCluster } from "./cluster.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The throwaway cluster every test file shares (each file makes its own database). */
    pg: ClusterInfo;
  }
}

/**
 * Starts one throwaway PostgreSQL cluster for the test run (a real server from Debian's
 * `postgresql` package) and builds this package's source for the child processes of the
 * cross-process tests, which cannot load TypeScript. The cluster is stopped and its directory
 * removed when the run ends, however it ends.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const building = buildForWorkers(fileURLToPath(new URL("..", import.meta.url)), [
    "pg",
    "@toolnexus/core",
  ]);
  const cluster = await startCluster("tests");
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    destroyCluster(cluster);
  };
  // A run killed by a signal still removes its cluster.
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
