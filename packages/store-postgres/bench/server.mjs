// A throwaway PostgreSQL server for the benchmark, with the server's default durability settings
// (fsync on, synchronous_commit on), unlike the tests' cluster. Needs Debian's `postgresql`
// binaries (/usr/lib/postgresql/<version>/bin) or initdb on PATH; as root it runs as `postgres`.
import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

function findBin() {
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(join(root, v, "bin", "initdb")))
      .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
    if (versions[0] !== undefined) return join(root, versions[0], "bin");
  }
  const which = spawnSync("sh", ["-c", "command -v initdb"], { encoding: "utf8" });
  if (which.status === 0 && which.stdout.trim())
    return which.stdout.trim().replace(/\/initdb$/, "");
  throw new Error(
    "initdb not found: install PostgreSQL (apt-get install postgresql) or set DATABASE_URL",
  );
}

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

/** Starts a server; returns its superuser URL, its version, and `stop()`. */
export async function startServer() {
  const bin = findBin();
  const asPostgres = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), "toolnexus-pg-bench-"));
  const data = join(dir, "data");
  if (asPostgres) {
    const id = (flag) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }));
    chownSync(dir, id("-u"), id("-g"));
  }
  const run = (tool, args) => {
    const [file, argv] = asPostgres
      ? ["runuser", ["-u", "postgres", "--", join(bin, tool), ...args]]
      : [join(bin, tool), args];
    const result = spawnSync(file, argv, { encoding: "utf8" });
    if (result.status !== 0) throw new Error(`${tool} failed: ${result.stderr}${result.stdout}`);
    return result.stdout;
  };
  const port = await freePort();
  try {
    run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C"]);
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`;
    run("pg_ctl", ["start", "-D", data, "-l", join(dir, "server.log"), "-w", "-o", options]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const version = run("postgres", ["--version"]).trim();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    version,
    stop() {
      try {
        run("pg_ctl", ["stop", "-D", data, "-m", "fast", "-w"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
