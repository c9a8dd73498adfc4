// `changeset version` in a throwaway clone of the committed state must bump every public
// package together (a fixed group) and write each pending changeset into their CHANGELOGs.
import { existsSync } from "node:fs";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { exec, fail, log, seconds } from "./proc.mjs";

export async function checkChangesets(root, tempDir, packages) {
  const clone = join(tempDir, "clone");
  const cloned = await exec("git", ["clone", "-q", "--no-hardlinks", root, clone]);
  if (!cloned.ok) return fail("(changesets)", "git clone", cloned.output);
  const dir = join(clone, ".changeset");
  const pending = (await readdir(dir)).filter((f) => f.endsWith(".md") && f !== "README.md");
  const summaries = [];
  for (const file of pending) {
    const text = await readFile(join(dir, file), "utf8");
    const front = /^---\r?\n([\s\S]*?)\r?\n---\r?\n([\s\S]*)$/.exec(text);
    if (!front || front[2].trim() === "") {
      fail(
        "(changesets)",
        `.changeset/${file}`,
        'needs front matter (`---`, `"@toolnexus/x": minor` lines, `---`) and a summary',
      );
      continue;
    }
    summaries.push({
      file,
      names: [...front[1].matchAll(/"([^"]+)"\s*:/g)].map((m) => m[1]),
      line: front[2].trim().split("\n")[0],
    });
  }
  if (pending.length === 0) {
    // Nothing pending (just after a release): a probe proves the pipeline still works.
    await writeFile(
      join(dir, "probe.md"),
      `---\n"${packages[0].name}": patch\n---\n\nPack test probe.\n`,
    );
    summaries.push({ file: "probe.md", names: [packages[0].name], line: "Pack test probe." });
  }
  const cli = createRequire(join(root, "package.json")).resolve("@changesets/cli/bin.js");
  const result = await exec(process.execPath, [cli, "version"], { cwd: clone });
  if (!result.ok)
    return fail("(changesets)", "changeset version", `${result.exit}:\n${result.output}`);

  const problems = [];
  const bumped = new Set();
  for (const pkg of packages) {
    const at = join(clone, relative(root, pkg.dir));
    const next = JSON.parse(await readFile(join(at, "package.json"), "utf8")).version;
    bumped.add(next);
    if (next === pkg.version) problems.push(`${pkg.name} stayed at ${pkg.version}`);
    const changelog = join(at, "CHANGELOG.md");
    const text = existsSync(changelog) ? await readFile(changelog, "utf8") : "";
    if (!text.includes(`## ${next}`))
      problems.push(`${pkg.name}'s CHANGELOG.md has no "## ${next}"`);
    for (const entry of summaries.filter((s) => s.names.includes(pkg.name))) {
      if (!text.includes(entry.line))
        problems.push(`${pkg.name}'s CHANGELOG.md lacks .changeset/${entry.file}`);
    }
  }
  if (bumped.size !== 1)
    problems.push(`public packages not bumped together: ${[...bumped].join(", ")}`);
  if (problems.length > 0) return fail("(changesets)", "changeset version", problems.join("\n"));
  log(
    `ok   changesets: ${pending.length} pending; \`changeset version\` bumps all ${packages.length} public packages to ${[...bumped][0]} with CHANGELOGs (${seconds(result.ms)})`,
  );
}
