// A throwaway PostgreSQL cluster for the tests: Debian's `postgresql` binaries, a data directory
// under the OS temp dir, listening on 127.0.0.1 on a free port, stopped and removed at the end.
// initdb refuses to run as root, so as root the cluster runs as the `postgres` user. A test process
// that dies before stopping its cluster (killed on a timeout, by turbo, by Ctrl-C) leaves it to
// the chaos kit's watchdog, which stops it and removes its files. A test that fails or times out
// while a restart or an outage is under way still ends with no server: destroyCluster ends those
// commands first, so none starts the server again behind it.
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { guard } from "@toolnexus/chaos-kit";
import pg from "pg";

/** A role that logs in with a password over TCP (the credential tests). */
export const PASSWORD_USER = "toolnexus_pw";
export const PASSWORD = "s3cret-PASSWORD-xyz";
/** A role without CREATE on the database (the permission tests). */
export const LIMITED_USER = "toolnexus_limited";

/** What a test needs to reach and drive a cluster (plain data: it crosses into test workers). */
export interface ClusterInfo {
  /** Superuser URL (trust), database `postgres`. */
  url: string;
  host: string;
  port: number;
  dataDir: string;
  bin: string;
  /** Whether the server's commands must run as the `postgres` user (we are root). */
  asPostgres: boolean;
  /** The server options it was started with (port, sockets, hba file…), to start it again. */
  options: string;
}

/** The directory of `initdb`, `pg_ctl`…: the newest /usr/lib/postgresql/<version>/bin, or PATH. */
export function findBin(): string {
  const fromEnv = process.env.TOOLNEXUS_PG_BIN;
  if (fromEnv && existsSync(join(fromEnv, "initdb"))) return fromEnv;
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(join(root, v, "bin", "initdb")))
      .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
    if (versions[0] !== undefined) return join(root, versions[0], "bin");
  }
  const which = spawnSync("sh", ["-c", "command -v initdb"], { encoding: "utf8" });
  const found = which.stdout.trim();
  if (which.status === 0 && found) return found.replace(/\/initdb$/, "");
  throw new Error(
    "PostgreSQL's server binaries (initdb, pg_ctl) were not found in /usr/lib/postgresql/*/bin or on PATH: install them (Debian: apt-get install postgresql) or set TOOLNEXUS_PG_BIN",
  );
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

const isRoot = () => typeof process.getuid === "function" && process.getuid() === 0;

/** Runs a server binary, as `postgres` when we are root; throws with its output on failure. */
export function runServerCommand(
  info: Pick<ClusterInfo, "bin" | "asPostgres">,
  tool: string,
  args: string[],
) {
  const command = join(info.bin, tool);
  const [file, argv] = info.asPostgres
    ? ["runuser", ["-u", "postgres", "--", command, ...args]]
    : [command, args];
  const result = spawnSync(file, argv, { encoding: "utf8", timeout: 120_000 });
  if (result.status !== 0) {
    throw new Error(
      `${tool} ${args.join(" ")} failed (${result.status ?? result.signal}): ${result.stderr}${result.stdout}`,
    );
  }
  return result.stdout;
}

const stopArgs = (dataDir: string) => ["stop", "-D", dataDir, "-m", "immediate", "-w"];

/** The clusters this process started, each with the release of its watchdog entry. */
const guarded = new Map<string, () => void>();
/** Server commands under way per data directory (a restart, an outage's stop or start). */
const underWay = new Map<string, Set<ChildProcess>>();
/** Data directories destroyed: no server command may start there again. */
const destroyed = new Set<string>();

/** The postmaster's pid from its lock file, if the file is there. */
function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Stops the server at once (no checkpoint: the cluster is thrown away) and removes its files. */
export function destroyCluster(info: ClusterInfo): void {
  destroyed.add(info.dataDir);
  // A restart still running would start the server again after the stop below.
  for (const command of underWay.get(info.dataDir) ?? []) {
    try {
      if (command.pid !== undefined) process.kill(-command.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  underWay.delete(info.dataDir);
  try {
    runServerCommand(info, "pg_ctl", stopArgs(info.dataDir));
  } catch {
    // Not running, or a postmaster that pg_ctl could not reach: ended by its pid below.
  }
  const pid = postmasterPid(info.dataDir);
  if (pid !== undefined) {
    try {
      process.kill(pid, "SIGQUIT"); // PostgreSQL's immediate shutdown
    } catch {
      // Already gone.
    }
  }
  rmSync(join(info.dataDir, ".."), { recursive: true, force: true });
  guarded.get(info.dataDir)?.();
  guarded.delete(info.dataDir);
}

// With its log file: a server writing to pg_ctl's stdout would hold the caller's pipe open.
const restartArgs = (info: ClusterInfo) => [
  "restart",
  "-D",
  info.dataDir,
  "-l",
  join(info.dataDir, "..", "server.log"),
  "-m",
  "fast",
  "-w",
  "-t",
  "60",
];

/** `pg_ctl restart` (fast shutdown: open connections are cut), waiting until it accepts again. */
export function restartCluster(info: ClusterInfo): void {
  runServerCommand(info, "pg_ctl", restartArgs(info));
}

/** Creates, starts and prepares a cluster; on any failure, removes what it made and throws. */
export async function startCluster(label: string): Promise<ClusterInfo> {
  const bin = findBin();
  const asPostgres = isRoot();
  const dir = mkdtempSync(join(tmpdir(), `toolnexus-pg-${label}-`));
  const dataDir = join(dir, "data");
  if (asPostgres) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
  }
  const base = { bin, asPostgres };
  const pgCtl = join(bin, "pg_ctl");
  const release = guard({
    run: asPostgres
      ? ["runuser", "-u", "postgres", "--", pgCtl, ...stopArgs(dataDir)]
      : [pgCtl, ...stopArgs(dataDir)],
    remove: dir,
  });
  guarded.set(dataDir, release);
  let info: ClusterInfo | undefined;
  try {
    runServerCommand(base, "initdb", [
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
    // First match wins: the password role must use its password over TCP, everyone else is trusted.
    const hba = [
      "local all all trust",
      `host all ${PASSWORD_USER} 127.0.0.1/32 scram-sha-256`,
      "host all all 127.0.0.1/32 trust",
      "",
    ].join("\n");
    writeFileSync(join(dir, "pg_hba.conf"), hba);
    let lastError: unknown;
    for (let attempt = 0; attempt < 3 && info === undefined; attempt++) {
      const port = await freePort();
      const options = [
        `-p ${port}`,
        `-k ${dir}`,
        "-c listen_addresses=127.0.0.1",
        `-c hba_file=${join(dir, "pg_hba.conf")}`,
        // Throwaway data: no fsync (nothing here must survive a power cut), room for many workers.
        "-c fsync=off",
        "-c max_connections=300",
      ].join(" ");
      try {
        runServerCommand(base, "pg_ctl", [
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
        info = {
          url: `postgres://postgres@127.0.0.1:${port}/postgres`,
          host: "127.0.0.1",
          port,
          dataDir,
          bin,
          asPostgres,
          options,
        };
      } catch (error) {
        lastError = error;
      }
    }
    if (info === undefined) throw lastError;
    const admin = new pg.Client(info.url);
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE ${PASSWORD_USER} LOGIN SUPERUSER PASSWORD '${PASSWORD}'`);
      await admin.query(`CREATE ROLE ${LIMITED_USER} LOGIN`);
    } finally {
      await admin.end();
    }
    return info;
  } catch (error) {
    if (info !== undefined) destroyCluster(info);
    else {
      rmSync(dir, { recursive: true, force: true });
      release();
      guarded.delete(dataDir);
    }
    throw error;
  }
}

/** A new, empty database on the cluster; returns its superuser URL. */
export async function createDatabase(
  info: Pick<ClusterInfo, "url">,
  prefix: string,
): Promise<string> {
  const name = `${prefix}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client(info.url);
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return info.url.replace(/\/postgres$/, `/${name}`);
}

/** The same restart without blocking the event loop (the test keeps reading its children). */
export function restartClusterAsync(info: ClusterInfo): Promise<void> {
  return serverCommandAsync(info, "pg_ctl", restartArgs(info));
}

/**
 * Runs a server command without blocking the event loop (the test keeps reading its children),
 * in a process group of its own that destroyCluster ends if the test ends first.
 */
function serverCommandAsync(info: ClusterInfo, tool: string, args: string[]): Promise<void> {
  if (destroyed.has(info.dataDir)) {
    return Promise.reject(new Error(`${tool} ${args[0]}: the cluster was destroyed`));
  }
  const command = join(info.bin, tool);
  const [file, argv] = info.asPostgres
    ? ["runuser", ["-u", "postgres", "--", command, ...args]]
    : [command, args];
  const commands = underWay.get(info.dataDir) ?? new Set<ChildProcess>();
  underWay.set(info.dataDir, commands);
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv, { detached: true, stdio: ["ignore", "pipe", "pipe"] });
    commands.add(child);
    let output = "";
    child.stdout?.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr?.on("data", (chunk) => {
      output += chunk;
    });
    child.once("error", reject);
    child.once("close", (code, signal) => {
      commands.delete(child);
      if (code === 0) resolve();
      else reject(new Error(`${tool} ${args[0]} failed (${code ?? signal}): ${output}`));
    });
  });
}

/**
 * An outage like a failover's: the server is killed at once (`pg_ctl stop -m immediate`, no
 * goodbye to the clients), stays down for `downMs` (connections are refused), then starts again
 * on the same port and recovers from its WAL.
 */
export async function outage(info: ClusterInfo, downMs: number): Promise<void> {
  await serverCommandAsync(info, "pg_ctl", ["stop", "-D", info.dataDir, "-m", "immediate", "-w"]);
  await new Promise((resolve) => setTimeout(resolve, downMs));
  await serverCommandAsync(info, "pg_ctl", [
    "start",
    "-D",
    info.dataDir,
    "-l",
    join(info.dataDir, "..", "server.log"),
    "-w",
    "-t",
    "60",
    "-o",
    info.options,
  ]);
}
