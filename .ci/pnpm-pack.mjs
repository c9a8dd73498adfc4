// Packing workspace packages with one pnpm run (`pnpm -r pack`), shared by the pack tests and
// `pnpm pack:local`: pnpm started through npx costs about 3 s of CPU, and they once started it
// per package.

/** npx's arguments: `pnpm` (e.g. "pnpm@12.4.2") packs `names` into `destination`, as JSON. */
export function packArgs(pnpm, names, destination) {
  const filters = names.map((name) => `--filter=${name}`);
  return ["-y", pnpm, "-r", ...filters, "pack", "--pack-destination", destination, "--json"];
}

/** Each packed package's tarball path, by package name, from that run's standard output. */
export function packedTarballs(stdout) {
  const listed = JSON.parse(stdout.slice(stdout.indexOf("[")));
  return new Map(listed.map((entry) => [entry.name, entry.filename]));
}
