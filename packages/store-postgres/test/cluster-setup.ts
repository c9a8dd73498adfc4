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
 * A vitest globalSetup that starts one throwaway PostgreSQL cluster for the test run (a real
 * server from Debian's `postgresql` package) and builds the package at `packageDir` for the
 * child processes of its cross-process tests, which cannot load TypeScript (`external`: the
 * dependencies the build leaves to node_modules). The cluster is stopped and its directory
 * removed when the run ends, however it ends. Shared by store-postgres's and dbos's tests.
 */
export function clusterSetup(
  packageDir: string,
  external: string[],
  name: string,
): (project: TestProject) => Promise<() => void> {
  return async (project) => {
    const building = buildForWorkers(packageDir, external);
    const cluster = await startCluster(name);
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
  };
}
