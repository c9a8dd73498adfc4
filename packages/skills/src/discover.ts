import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { parseSkillFile } from "./front-matter.js";
import { effectiveMaxSkillBytes } from "./size-cap.js";
import { readSkillFile } from "./skill-file.js";
import { reasonText } from "./text.js";
import type {
  Skill,
  SkillDef,
  SkillInventory,
  SkillSkip,
  SkillSkipReason,
  SkillSourceOptions,
} from "./types.js";
import { findSkillFiles } from "./walk.js";

type Candidate = { skill: Skill } | { skip: SkillSkip };

function skip(location: string, reason: SkillSkipReason, message: string): Candidate {
  return { skip: { location, reason, message } };
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

async function fromFile(file: string, maxBytes: number): Promise<Candidate> {
  let text: string;
  try {
    const read = await readSkillFile(file, maxBytes);
    if ("tooLarge" in read) {
      return skip(
        file,
        "too-large",
        `${file}: the file is ${read.tooLarge} bytes, over the ${maxBytes}-byte limit (maxSkillBytes); skill skipped`,
      );
    }
    text = read.text;
  } catch (thrown) {
    return skip(file, "unreadable", `cannot read ${file}: ${reasonText(thrown)}`);
  }
  const { data, content, malformed } = parseSkillFile(text);
  if (malformed !== undefined) {
    return skip(
      file,
      "malformed-frontmatter",
      `${file}: the front matter is not valid YAML (${malformed}); skill skipped`,
    );
  }
  const name = data.name;
  if (name === undefined || name === "") {
    return skip(file, "missing-name", `${file}: the front matter has no "name"; skill skipped`);
  }
  const skill: Skill = { name, location: file, content, origin: "folder" };
  if (data.description !== undefined) skill.description = data.description;
  return { skill };
}

async function fromDir(
  root: string,
  maxBytes: number,
  signal: AbortSignal | undefined,
): Promise<Candidate[]> {
  const dir = resolve(root);
  if (!(await isDirectory(dir))) {
    return [skip(dir, "dir-not-found", `skills dir not found: ${dir}`)];
  }
  const out: Candidate[] = [];
  for (const file of await findSkillFiles(dir, signal)) {
    signal?.throwIfAborted();
    out.push(await fromFile(file, maxBytes));
  }
  return out;
}

function fromDef(def: SkillDef): Candidate {
  const name = typeof def?.name === "string" ? def.name : "";
  if (name === "") {
    const where = typeof def?.base === "string" && def.base !== "" ? def.base : "skill://";
    return skip(where, "missing-name", `a data skill (${where}) has no name; skill skipped`);
  }
  const base = typeof def.base === "string" && def.base !== "" ? def.base : `skill://${name}/`;
  const skill: Skill = {
    name,
    location: base,
    content: typeof def.content === "string" ? def.content : "",
    origin: "data",
    resources: [...(def.resources ?? [])],
    base,
  };
  if (def.description !== undefined) skill.description = def.description;
  return { skill };
}

function dirsOf(dirs: SkillSourceOptions["dirs"]): readonly string[] {
  if (dirs === undefined) return [];
  return typeof dirs === "string" ? [dirs] : dirs;
}

/**
 * Every candidate in source order: folder skills (folder by folder, each in discovery order),
 * then `skills`, then the provider's. A provider that fails is one `unreadable` skip.
 */
async function collect(options: SkillSourceOptions): Promise<Candidate[]> {
  const { signal } = options;
  const maxBytes = effectiveMaxSkillBytes(options.maxSkillBytes, "listSkills");
  signal?.throwIfAborted();
  const candidates: Candidate[] = [];
  for (const root of dirsOf(options.dirs)) {
    candidates.push(...(await fromDir(root, maxBytes, signal)));
  }
  for (const def of options.skills ?? []) candidates.push(fromDef(def));
  if (options.provider !== undefined) {
    try {
      const defs = await options.provider();
      for (const def of defs) candidates.push(fromDef(def));
    } catch (thrown) {
      candidates.push(
        skip("provider", "unreadable", `skill provider failed: ${reasonText(thrown)}`),
      );
    }
  }
  signal?.throwIfAborted();
  return candidates;
}

/** Keeps the first skill of each name; later ones become `duplicate-name` skips. */
function merge(candidates: readonly Candidate[]): SkillInventory {
  const byName = new Map<string, Skill>();
  const skipped: SkillSkip[] = [];
  for (const candidate of candidates) {
    if ("skip" in candidate) {
      skipped.push(candidate.skip);
      continue;
    }
    const { skill } = candidate;
    const first = byName.get(skill.name);
    if (first !== undefined) {
      skipped.push({
        location: skill.location,
        reason: "duplicate-name",
        message: `duplicate skill name "${skill.name}" (${skill.location}) — keeping first (${first.location})`,
      });
      continue;
    }
    byName.set(skill.name, skill);
  }
  return { skills: [...byName.values()], skipped };
}

/** Discovery shared by listSkills and loadSkills. */
export async function discover(options: SkillSourceOptions): Promise<SkillInventory> {
  return merge(await collect(options));
}

/**
 * Finds and validates skills without building a tool: every valid skill (the first of each
 * name, in discovery order) and every skipped candidate with its reason. Nothing is filtered
 * and nothing is logged. Use it to check a skills folder, or to write a `filter`.
 *
 * A bare string or array is shorthand for `{ dirs }`.
 */
export function listSkills(
  input: string | readonly string[] | SkillSourceOptions,
): Promise<SkillInventory> {
  return discover(sourceOptions(input));
}

/** A bare folder or list of folders as options. */
export function sourceOptions<T extends SkillSourceOptions>(
  input: string | readonly string[] | T,
): T | SkillSourceOptions {
  if (typeof input === "string" || Array.isArray(input)) {
    return { dirs: input as string | readonly string[] };
  }
  return input as T;
}
