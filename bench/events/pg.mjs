// A throwaway PostgreSQL cluster for the events bench: Debian's server binaries
// (.ci/postgres-setup.sh installs them), a data directory in the OS temp dir, 127.0.0.1 on a free
// port, stopped at once and removed at the end. initdb refuses root, so as root the server runs
// as the `postgres` user. Data is throwaway, so fsync is off: figures are the store's and
// PostgreSQL's CPU cost, not a disk's flush latency (say so next to them).
import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

function findBin() {
  const fromEnv = process.env.TOOLNEXUS_PG_BIN;
  if (fromEnv && existsSync(join(fromEnv, "initdb"))) return fromEnv;
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(join(root, v, "bin", "initdb")))
      .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
    if (versions[0] !== undefined) return join(root, versions[0], "bin");
  }
  throw new Error(
    "PostgreSQL's server binaries were not found in /usr/lib/postgresql/*/bin: run .ci/postgres-setup.sh as root (apt-get install postgresql) or set TOOLNEXUS_PG_BIN",
  );
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function run(cluster, tool, args) {
  const command = join(cluster.bin, tool);
  const [file, argv] = cluster.asPostgres
    ? ["runuser", ["-u", "postgres", "--", command, ...args]]
    : [command, args];
  const result = spawnSync(file, argv, { encoding: "utf8", timeout: 120_000 });
  if (result.status !== 0) {
    throw new Error(
      `${tool} ${args[0]} failed (${result.status ?? result.signal}): ${result.stderr}${result.stdout}`,
    );
  }
  return result.stdout;
}

/** Starts a cluster; `stop()` removes it (also registered on process exit). */
export async function startCluster() {
  const bin = findBin();
  const asPostgres = typeof process.getuid === "function" && process.getuid() === 0;
  const dir = mkdtempSync(join(tmpdir(), "toolnexus-bench-pg-"));
  const dataDir = join(dir, "data");
  if (asPostgres) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
  }
  const cluster = { bin, asPostgres, dataDir, version: "", url: "" };
  let started = false;
  const stop = () => {
    if (started) {
      try {
        run(cluster, "pg_ctl", ["stop", "-D", dataDir, "-m", "immediate", "-w"]);
      } catch {
        // Already down.
      }
      started = false;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once("exit", stop);
  // Ctrl-C or a kill: 'exit' alone would not run, leaving the server up and its files behind.
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.once(signal, () => {
      stop();
      process.exit(130);
    });
  }
  try {
    run(cluster, "initdb", [
      "-D",
      dataDir,
      "-A",
      "trust",
      "-U",
      "postgres",
      "-E",
      "UTF8",
      "--locale=C",
      "--no-sync",
    ]);
    writeFileSync(
      join(dir, "pg_hba.conf"),
      "local all all trust\nhost all all 127.0.0.1/32 trust\n",
    );
    const port = await freePort();
    const options = [
      `-p ${port}`,
      `-k ${dir}`,
      "-c listen_addresses=127.0.0.1",
      `-c hba_file=${join(dir, "pg_hba.conf")}`,
      "-c fsync=off",
      "-c max_connections=200",
    ].join(" ");
    run(cluster, "pg_ctl", [
      "start",
      "-D",
      dataDir,
      "-l",
      join(dir, "server.log"),
      "-w",
      "-t",
      "60",
      "-o",
      options,
    ]);
    started = true;
    cluster.version = run(cluster, "postgres", ["--version"]).trim();
    cluster.url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    return { ...cluster, stop };
  } catch (error) {
    stop();
    throw error;
  }
}
