#!/usr/bin/env node
// Pack test: does a user who installs our packages from npm get working packages?
//
//   1. every public workspace package is packed with pnpm (as `changeset publish` packs it);
//   2. each tarball is checked: real versions instead of `workspace:` ranges, a README, and
//      clean publint and are-the-types-wrong reports;
//   3. the tarballs are installed with npm into a fresh project under the OS temp dir;
//   4. each README's first ```ts example is run there as ESM and as CommonJS, against a fake
//      model provider on 127.0.0.1 (`pack-test/fake-provider.mjs`), and its `// output`
//      comments are looked for in what it prints; the examples and every entry point are
//      typechecked with a strict `tsc` (nodenext);
//   5. `changeset version` in a clone bumps the packages together and writes their CHANGELOGs.
//
//   node .ci/pack-test.mjs [--keep]     (--keep keeps the temp dir for a look)
//
// It needs the workspace built (`pnpm test` builds it). Exits non-zero when anything fails;
// every failure names the package and the step.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { checkChangesets } from "./pack-test/changesets.mjs";
import { PROVIDER_PACKAGES, REPLY, startFakeProvider } from "./pack-test/fake-provider.mjs";
import { startPrebuildHost } from "./pack-test/prebuilds.mjs";
import { exec, fail, failures, indent, log, pool, seconds } from "./pack-test/proc.mjs";
import {
  analyseExample,
  importedPackages,
  missingOutput,
  readReadme,
  toCjs,
  toEsm,
} from "./pack-test/readme.mjs";
import { packArgs, packedTarballs } from "./pnpm-pack.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const KEEP = process.argv.includes("--keep");
const slot = pool(3);
const readJson = async (file) => JSON.parse(await readFile(file, "utf8"));
const short = (name) => name.replace(/^@/, "").replace("/", "-");

async function main() {
  const rootManifest = await readJson(join(ROOT, "package.json"));
  const pnpm = rootManifest.packageManager; // e.g. pnpm@12.4.2
  const all = await workspacePackages();
  const packages = all.filter((pkg) => !pkg.manifest.private);
  log(`public packages: ${packages.map((pkg) => pkg.name).join(", ")}`);
  for (const pkg of packages.filter((p) => !existsSync(join(p.dir, "dist")))) {
    fail(pkg.name, "build", `no dist/ in ${relative(ROOT, pkg.dir)}: build first (pnpm build)`);
  }
  if (failures.length > 0) return;

  const temp = await mkdtemp(join(tmpdir(), "toolnexus-pack-"));
  const fake = await startFakeProvider();
  try {
    const changesets = checkChangesets(ROOT, temp, packages);
    await packAll(packages, pnpm, temp);
    await Promise.all(
      packages.filter((p) => p.tarball).map((pkg) => slot(() => check(pkg, temp, all))),
    );
    const lints = Promise.all(packages.filter((p) => p.tarball).map(lint));
    if (packages.every((pkg) => pkg.tarball))
      await installAndRun(packages, all, rootManifest, temp, fake);
    await Promise.all([lints, changesets]);
  } finally {
    await fake.close();
    if (KEEP || failures.length > 0) log(`temp dir kept: ${temp}`);
    else await rm(temp, { recursive: true, force: true });
  }
}

/** The workspace's packages, from the `packages:` list of pnpm-workspace.yaml (`dir/*` or `dir`). */
async function workspacePackages() {
  const yaml = await readFile(join(ROOT, "pnpm-workspace.yaml"), "utf8");
  const globs = [
    ...(/^packages:\n((?:\s+-.*\n)+)/m.exec(yaml)?.[1] ?? "").matchAll(/-\s+["']?([^"'\s]+)/g),
  ].map((m) => m[1]);
  const dirs = [];
  for (const glob of globs) {
    if (!glob.endsWith("/*")) dirs.push(join(ROOT, glob));
    else {
      const { readdirSync } = await import("node:fs");
      const parent = join(ROOT, glob.slice(0, -2));
      for (const name of readdirSync(parent).sort()) dirs.push(join(parent, name));
    }
  }
  const found = [];
  for (const dir of dirs.filter((d) => existsSync(join(d, "package.json")))) {
    const manifest = await readJson(join(dir, "package.json"));
    found.push({ dir, name: manifest.name, version: manifest.version, manifest });
  }
  return found;
}

/** 1: packs every public package in one pnpm run, each as `pnpm pack` packs it. */
async function packAll(packages, pnpm, temp) {
  const out = join(temp, "tarballs");
  await mkdir(out, { recursive: true });
  const names = packages.map((pkg) => pkg.name);
  const packed = await exec("npx", packArgs(pnpm, names, out), { cwd: ROOT });
  if (!packed.ok) return fail("(all packages)", "pack", `${packed.exit}:\n${packed.output}`);
  const files = packedTarballs(packed.stdout);
  for (const pkg of packages) {
    pkg.tarball = files.get(pkg.name);
    if (pkg.tarball === undefined) fail(pkg.name, "pack", `pnpm -r pack made no tarball for it`);
  }
}

/** 2: what npm will see in a package's tarball. */
async function check(pkg, temp, all) {
  const unpacked = join(temp, "unpacked", short(pkg.name));
  await mkdir(unpacked, { recursive: true });
  const untar = await exec("tar", ["-xzf", pkg.tarball, "-C", unpacked]);
  if (!untar.ok) return fail(pkg.name, "tarball", untar.output);
  pkg.unpacked = join(unpacked, "package");
  pkg.packedManifest = await readJson(join(pkg.unpacked, "package.json"));
  const problems = [];
  const versions = new Map(all.map((p) => [p.name, p.version]));
  for (const field of ["dependencies", "peerDependencies", "optionalDependencies"]) {
    for (const [dep, range] of Object.entries(pkg.packedManifest[field] ?? {})) {
      if (range.startsWith("workspace:")) problems.push(`${field}.${dep} is still "${range}"`);
      else if (versions.has(dep) && range.replace(/^[\^~]/, "") !== versions.get(dep)) {
        problems.push(`${field}.${dep} is "${range}", the workspace has ${versions.get(dep)}`);
      }
    }
  }
  if (!existsSync(join(pkg.unpacked, "README.md"))) problems.push("no README.md");
  else pkg.readme = readReadme(pkg.name, await readFile(join(pkg.unpacked, "README.md"), "utf8"));
  if (problems.length > 0) return fail(pkg.name, "tarball", problems.join("\n"));
  log(`ok   ${pkg.name}: packed with real versions and a README`);
}

/** 2: publint and are-the-types-wrong must have nothing to say, suggestions included. */
async function lint(pkg) {
  const bin = join(ROOT, "node_modules", ".bin");
  const publint = await slot(() => exec(join(bin, "publint"), ["run", "--strict", pkg.tarball]));
  if (!publint.ok || !publint.stdout.includes("All good!"))
    fail(pkg.name, "publint", publint.output);
  const attw = await slot(() => exec(join(bin, "attw"), [pkg.tarball, "--no-color", "--no-emoji"]));
  if (!attw.ok || !attw.stdout.includes("No problems found")) fail(pkg.name, "attw", attw.output);
  if (publint.ok && attw.ok) log(`ok   ${pkg.name}: publint and attw clean`);
}

/** 3–4: one npm project with every tarball; each README example run and typechecked there. */
async function installAndRun(packages, all, rootManifest, temp, fake) {
  const project = join(temp, "project");
  await mkdir(project, { recursive: true });
  // What the examples import from the registry (zod…), at the range the workspace uses.
  const declared = (name) =>
    [...all.map((p) => p.manifest), rootManifest]
      .flatMap((m) => [m.dependencies, m.peerDependencies, m.devDependencies])
      .map((deps) => deps?.[name])
      .find((range) => range && !range.startsWith("workspace:"));
  const registry = { typescript: declared("typescript"), "@types/node": declared("@types/node") };
  for (const pkg of packages) {
    for (const name of importedPackages(pkg.readme?.example?.code ?? "")) {
      if (packages.some((p) => p.name === name) || registry[name]) continue;
      if (declared(name)) registry[name] = declared(name);
      else
        fail(
          pkg.name,
          "README",
          `the example imports ${name}, which no workspace package declares`,
        );
    }
  }
  await writeProject(project, packages, registry);
  log(`...  npm install of ${packages.length} tarballs and ${Object.keys(registry).join(", ")}`);
  // better-sqlite3's install script downloads a prebuilt binary (prebuild-install) from GitHub,
  // which CI cannot reach: it gets it from a host on 127.0.0.1 instead (pack-test/prebuilds.mjs:
  // the workspace's own build of the same version), and compiles from source when that has none.
  const prebuilds = await startPrebuildHost(ROOT, temp);
  const npmEnv = { ...cleanNpmEnv(), ...prebuilds.env };
  const install = await exec("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], {
    cwd: project,
    env: npmEnv,
    timeoutMs: 900_000,
  }).finally(() => prebuilds.close());
  if (!install.ok)
    return fail("(all packages)", "npm install", `${install.exit}:\n${install.output}`);
  const sqlite =
    prebuilds.served().length > 0
      ? `better-sqlite3 from its prebuilt binary (${prebuilds.name}, served on 127.0.0.1)`
      : `better-sqlite3 compiled from source (${prebuilds.why ?? `no prebuilt binary: ${JSON.stringify(prebuilds.requests())}`})`;
  log(`ok   npm install, ${sqlite} (${seconds(install.ms)})`);
  const lock = await readJson(join(project, "package-lock.json"));
  for (const pkg of packages) {
    const copies = Object.keys(lock.packages).filter((path) =>
      path.endsWith(`node_modules/${pkg.name}`),
    );
    const top = lock.packages[`node_modules/${pkg.name}`];
    if (copies.length !== 1 || !top?.resolved?.startsWith("file:") || top.version !== pkg.version) {
      fail(
        pkg.name,
        "npm install",
        `expected once, from its tarball, at ${pkg.version}; found ${copies.join(", ")} (${top?.resolved})`,
      );
    }
  }

  const ts = createRequire(join(project, "package.json"))("typescript");
  const runs = [];
  for (const pkg of packages) {
    const dir = join(project, "examples", short(pkg.name));
    await mkdir(dir, { recursive: true });
    // Every entry point, typechecked from ESM and from CommonJS.
    const entries = Object.keys(pkg.packedManifest.exports ?? { ".": 0 })
      .filter((key) => !key.endsWith(".json"))
      .map((key) => (key === "." ? pkg.name : `${pkg.name}/${key.slice(2)}`));
    const api = `${entries.map((spec, i) => `import * as e${i} from "${spec}";`).join("\n")}\nexport type All = [${entries.map((_, i) => `typeof e${i}`).join(", ")}];\n`;
    await writeFile(join(dir, "api.mts"), api);
    await writeFile(join(dir, "api.cts"), api);
    const readme = pkg.readme;
    if (readme === undefined) continue;
    const imports = readme.example ? importedPackages(readme.example.code) : [];
    if (readme.example && !imports.includes(pkg.name))
      readme.problems.push(`the example does not import ${pkg.name}`);
    const missing = imports.filter((name) => !readme.install.includes(name));
    if (missing.length > 0)
      readme.problems.push(
        `the example imports ${missing.join(", ")}, which the install line leaves out`,
      );
    if (readme.problems.length > 0) fail(pkg.name, "README", readme.problems.join("\n"));
    if (!readme.example) continue;
    const analysis = analyseExample(ts, readme.example.code);
    await writeFile(join(dir, "readme.mts"), readme.example.code);
    await writeFile(join(dir, "readme.mjs"), toEsm(ts, readme.example.code));
    await writeFile(join(dir, "readme.cjs"), toCjs(ts, analysis, readme.example.code));
    for (const format of ["esm", "cjs"])
      runs.push(slot(() => runExample(pkg, format, { project, dir, analysis, fake })));
  }
  const tsc = slot(() =>
    exec(
      process.execPath,
      [join(project, "node_modules/typescript/bin/tsc"), "-p", project, "--pretty", "false"],
      { cwd: project },
    ),
  );
  await Promise.all(runs);
  const checked = await tsc;
  if (checked.ok)
    log(`ok   tsc --noEmit (strict, nodenext) of every example and entry point, ESM and CJS`);
  else fail("(examples)", "typecheck", checked.output);
}

/** Runs one README example and checks its exit, stderr, expected output and provider traffic. */
async function runExample(pkg, format, { project, dir, analysis, fake }) {
  const run = `${short(pkg.name)}-${format}`;
  const cwd = join(project, "runs", run);
  await mkdir(cwd, { recursive: true });
  // The guards fail the run if ESM loaded a CommonJS build (two copies of one package), or if
  // the CommonJS example never really require()d the package's CommonJS build.
  const flags =
    format === "esm"
      ? ["--import", join(project, "guard-esm.mjs")]
      : ["--no-experimental-require-module", "--require", join(project, "guard-cjs.cjs")].filter(
          (flag) =>
            flag !== "--no-experimental-require-module" ||
            process.allowedNodeEnvironmentFlags.has(flag),
        );
  const file = join(dir, format === "esm" ? "readme.mjs" : "readme.cjs");
  const env = { ...fake.env(run), NO_COLOR: "1", PACK_TEST_PACKAGE: pkg.name };
  const result = await exec(process.execPath, [...flags, file], { cwd, env, timeoutMs: 60_000 });
  const step = `${format.toUpperCase()} example (README line ${pkg.readme.example.line})`;
  if (!result.ok) return fail(pkg.name, step, `${result.exit}:\n${result.output}`);
  if (result.stderr.trim() !== "")
    return fail(pkg.name, step, `wrote to stderr:\n${result.stderr}`);
  const absent = missingOutput(analysis.expected, result.stdout);
  if (absent)
    return fail(
      pkg.name,
      step,
      `no "${absent.text}" (example line ${absent.line}) in:\n${indent(result.stdout)}`,
    );
  let talked = "";
  const api = PROVIDER_PACKAGES[pkg.name];
  if (api !== undefined) {
    const turns = fake.turnsOf(run).filter((turn) => turn.api === api);
    const problems = [];
    if (turns.length === 0)
      problems.push(`no request reached the fake ${api} server (a hard-coded baseUrl bypasses it)`);
    if (turns.some((t) => t.call) && !turns.some((t) => t.hadToolResult))
      problems.push("a tool was called but its result never came back");
    if (turns.length > 0 && !result.stdout.includes(REPLY))
      problems.push(`the fake model's answer is not printed`);
    if (problems.length > 0)
      return fail(pkg.name, step, `${problems.join("\n")}\nstdout:\n${indent(result.stdout)}`);
    talked = `, ${turns.length} request(s) to the fake ${api} server${turns.some((t) => t.call) ? " with a tool round trip" : ""}`;
  }
  log(
    `ok   ${pkg.name}: ${format} example exits 0, ${analysis.expected.length} expected line(s) printed${talked} (${seconds(result.ms)})`,
  );
}

async function writeProject(project, packages, registry) {
  const dependencies = { ...registry };
  const overrides = {};
  for (const pkg of packages) {
    dependencies[pkg.name] = `file:${relative(project, pkg.tarball)}`;
    overrides[pkg.name] = `$${pkg.name}`; // transitive ranges resolve to the tarballs too
  }
  const manifest = { name: "pack-test", private: true, dependencies, overrides };
  await writeFile(join(project, "package.json"), JSON.stringify(manifest, null, 2));
  const compilerOptions = {
    strict: true,
    module: "nodenext",
    target: "es2022",
    lib: ["es2023"],
    types: ["node"],
    noEmit: true,
  };
  await writeFile(
    join(project, "tsconfig.json"),
    JSON.stringify({ compilerOptions, include: ["examples/**/*.mts", "examples/**/*.cts"] }),
  );
  await writeFile(
    join(project, "guard-esm.mjs"),
    `import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
process.on("exit", () => {
  const cjs = Object.keys(require.cache).filter((f) => /[\\\\/]node_modules[\\\\/]@toolnexus[\\\\/]/.test(f));
  if (cjs.length > 0) { process.stderr.write("ESM example loaded CommonJS builds: " + cjs.join(", ") + "\\n"); process.exitCode = 1; }
});\n`,
  );
  await writeFile(
    join(project, "guard-cjs.cjs"),
    `const { sep } = require("node:path");
process.on("exit", () => {
  const marker = sep + "node_modules" + sep + process.env.PACK_TEST_PACKAGE.split("/").join(sep) + sep;
  if (!Object.keys(require.cache).some((f) => f.includes(marker))) { process.stderr.write("the CommonJS build was never require()d\\n"); process.exitCode = 1; }
});\n`,
  );
}

/** npm's defaults, not the npm_config_* that pnpm and turbo set for their children. */
function cleanNpmEnv() {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (/^npm_config_/i.test(key) && !/^npm_config_(cache|registry|userconfig|nodedir)$/i.test(key))
      delete env[key];
  }
  return env;
}

const begin = Date.now();
try {
  await main();
} catch (error) {
  fail("(pack test)", "internal error", error?.stack ?? String(error));
}
if (failures.length > 0) {
  console.error(
    `\npack-test: FAILED in ${seconds(Date.now() - begin)}, ${failures.length} failure(s):`,
  );
  for (const { pkg, step, detail } of failures)
    console.error(`\n✗ ${pkg}: ${step}\n${indent(detail)}`);
  process.exit(1);
}
console.log(`\npack-test: passed in ${seconds(Date.now() - begin)}`);
