#!/usr/bin/env node
// `pnpm pack:local`: packs every public package into tarballs/ (the packages are not on npm
// yet), as `changeset publish` would pack them, and prints the npm install line for each: its
// tarball and those of the @toolnexus packages it depends on (npm would look those up on the
// registry otherwise). Run after a build (the root script builds first).
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { packArgs, packedTarballs } from "./pnpm-pack.mjs";

const root = new URL("..", import.meta.url).pathname;
const out = join(root, "tarballs");
mkdirSync(out, { recursive: true });
const pnpm = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).packageManager;

const packages = readdirSync(join(root, "packages"))
  .map((dir) => join(root, "packages", dir))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) }))
  .filter((pkg) => !pkg.manifest.private);

// One pnpm run packs them all (.ci/pnpm-pack.mjs).
const names = packages.map((pkg) => pkg.manifest.name);
const packed = spawnSync("npx", packArgs(pnpm, names, out), { cwd: root, encoding: "utf8" });
if (packed.status !== 0) {
  console.error(`pnpm pack failed\n${packed.stderr}${packed.stdout}`);
  process.exit(1);
}
const tarballs = packedTarballs(packed.stdout);

/** The package and every @toolnexus package it depends on, directly or not. */
function closure(name, seen = new Set()) {
  if (seen.has(name) || !tarballs.has(name)) return seen;
  seen.add(name);
  const manifest = packages.find((pkg) => pkg.manifest.name === name).manifest;
  for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })) {
    closure(dep, seen);
  }
  return seen;
}

console.log(
  `${tarballs.size} tarballs in ${relative(process.cwd(), out) || "."}/. In your project:`,
);
for (const name of tarballs.keys()) {
  const files = [...closure(name)].map((dep) => tarballs.get(dep));
  console.log(`  ${name}:\n    npm install ${files.join(" ")}`);
}
