// A prebuilt-binary host for better-sqlite3 on 127.0.0.1, so the pack test's `npm install` takes
// the path a user's install takes (better-sqlite3's install script runs prebuild-install, which
// downloads `better-sqlite3-v<version>-node-v<abi>-<platform>-<arch>.tar.gz`, unpacks it and
// require()s the binary) instead of compiling SQLite from source for ~80 s. The real host is
// GitHub, which this machine cannot reach; prebuild-install's own documented override
// (`npm_config_better_sqlite3_binary_host`) points it here instead. The binary served is the
// one the workspace's install built from the same better-sqlite3 sources, packed in the layout
// of the published prebuilds (build/Release/better_sqlite3.node).
//
// Only that exact file is served: a request for another version, ABI, platform or libc gets a
// 404, and better-sqlite3's install script then falls back to compiling from source
// (`prebuild-install || node-gyp rebuild --release`), as it would for a user. `served()` says
// which happened.
import { createHash } from "node:crypto";
import { createReadStream, existsSync } from "node:fs";
import { mkdir, readFile, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { exec } from "./proc.mjs";

/**
 * Starts the host. `root` is the workspace, `temp` a folder for the tarball. Resolves to
 * `{ env, served, file, close }`, or to `{ env: {}, served: () => [], why }` when the workspace
 * has no usable binary (the install then compiles from source, as before).
 */
export async function startPrebuildHost(root, temp) {
  const none = (why) => ({
    env: {},
    served: () => [],
    requests: () => [],
    why,
    close: async () => {},
  });
  const require = createRequire(join(root, "packages", "store-sqlite", "package.json"));
  let dir;
  try {
    dir = dirname(require.resolve("better-sqlite3/package.json"));
  } catch {
    return none("better-sqlite3 is not installed in the workspace");
  }
  const { version } = JSON.parse(await readFile(join(dir, "package.json"), "utf8"));
  const binary = join("build", "Release", "better_sqlite3.node");
  if (!existsSync(join(dir, binary))) return none(`no ${binary} in ${dir}`);
  // The binary must load in this Node (the one npm runs the install scripts with).
  try {
    process.dlopen({ exports: {} }, join(dir, binary));
  } catch (error) {
    return none(`the workspace's ${binary} does not load here: ${error.message}`);
  }
  // glibc Linux only: prebuild-install puts musl (or another libc) in the name, and other
  // platforms are not what CI runs on.
  if (
    process.platform !== "linux" ||
    process.report?.getReport().header.glibcVersionRuntime === undefined
  )
    return none("not a glibc Linux");
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-linux-${process.arch}.tar.gz`;
  const urlPath = `/v${version}/${name}`;
  const out = join(temp, "prebuilds");
  await mkdir(out, { recursive: true });
  const file = join(out, name);
  const tar = await exec("tar", ["-czf", file, "-C", dir, binary]);
  if (!tar.ok) return none(`tar: ${tar.output}`);

  const requests = [];
  const server = createServer((request, response) => {
    const ok = request.method === "GET" && request.url === urlPath;
    requests.push({ url: request.url, status: ok ? 200 : 404 });
    if (!ok) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "content-type": "application/gzip" });
    createReadStream(file).pipe(response);
  });
  await new Promise((ready) => server.listen(0, "127.0.0.1", ready));
  const host = `http://127.0.0.1:${server.address().port}`;
  // prebuild-install keeps each download in npm's cache (`_prebuilds/<digest of the url>-<name>`);
  // the port changes every run, so that copy is never reused: remove it when done.
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: npm's own setting, not read by a turbo task
  const cache = process.env.npm_config_cache || join(homedir(), ".npm");
  const digest = createHash("sha512").update(`${host}${urlPath}`).digest("hex").slice(0, 6);
  const cached = join(cache, "_prebuilds", `${digest}-${name.replace(/[^a-zA-Z0-9.]+/g, "-")}`);
  return {
    env: { npm_config_better_sqlite3_binary_host: host },
    served: () => requests.filter((r) => r.status === 200).map((r) => r.url),
    requests: () => requests,
    version,
    name,
    close: async () => {
      server.closeAllConnections?.();
      await new Promise((done) => server.close(() => done()));
      await rm(cached, { force: true });
    },
  };
}
