import type { Tool, ToolContext, ToolResult } from "@toolnexus/core";
import { error, ok } from "@toolnexus/core";
import { isRefusal, Root } from "./confine.js";
import { type Args, defineBuiltin, messageOf, requiredString } from "./define.js";
import {
  deleteConfined,
  looksBinary,
  MAX_WHOLE_FILE_BYTES,
  readWhole,
  refusalOf,
  statOf,
  writeConfined,
} from "./files.js";
import { limited } from "./limit.js";
import type { BuiltinToolOptions } from "./options.js";
import { applyHunks, PatchError, parsePatch } from "./patch.js";

/** What a confined path holds during staging: its content, or null when absent / deleted. */
interface Slot {
  shown: string;
  /** On disk before the patch (null: no file). */
  original: Buffer | null;
  /** After the patch (null: no file). */
  next: string | null;
}

/**
 * `apply_patch`: applies a patch in opencode's Begin/End Patch grammar to files inside the root.
 * Every operation is checked and computed before anything is written; if a write then fails,
 * the files already written are restored. A hunk that does not match changes nothing.
 */
export function applyPatchTool(options: BuiltinToolOptions = {}): Tool {
  const root = new Root(options.root, options);
  return defineBuiltin(
    {
      name: "apply_patch",
      description:
        "Apply a patch (Begin/End Patch grammar: Add/Update/Delete File). Atomic — a non-matching hunk aborts with no writes.",
      inputSchema: {
        type: "object",
        properties: {
          patchText: {
            type: "string",
            description: "The patch text in Begin/End Patch format",
          },
        },
        required: ["patchText"],
        additionalProperties: false,
      },
      run: (args: Args, ctx: ToolContext) =>
        limited("apply_patch", ctx, undefined, async (limit): Promise<ToolResult> => {
          const patchText = requiredString(args, "patchText");
          let ops: ReturnType<typeof parsePatch>;
          try {
            ops = parsePatch(patchText);
          } catch (thrown) {
            if (thrown instanceof PatchError) return error(`apply_patch: ${thrown.message}`);
            throw thrown;
          }
          const slots = new Map<string, Slot>();
          /** The staged slot of a path, loading what is on disk the first time. */
          const slotOf = async (input: string): Promise<[string, Slot] | ToolResult> => {
            const resolved = await root.resolve("apply_patch", input);
            if (isRefusal(resolved)) return resolved.refused;
            const known = slots.get(resolved.real);
            if (known !== undefined) return [resolved.real, known];
            const stats = await statOf(resolved.real);
            let original: Buffer | null = null;
            if (stats !== undefined) {
              if (!stats.isFile()) {
                return error(
                  `apply_patch: refused ${JSON.stringify(input)}: it is not a regular file`,
                );
              }
              if (stats.size > MAX_WHOLE_FILE_BYTES) {
                return error(
                  `apply_patch: refused ${JSON.stringify(input)}: it is larger than ${MAX_WHOLE_FILE_BYTES} bytes`,
                );
              }
              try {
                original = await readWhole(root, resolved.real, limit.signal);
              } catch (thrown) {
                return refusalOf(root, "apply_patch", input, thrown);
              }
              if (looksBinary(original)) {
                return error(
                  `apply_patch: refused ${JSON.stringify(input)}: it looks like a binary file`,
                );
              }
            }
            const slot: Slot = { shown: input, original, next: original?.toString("utf8") ?? null };
            slots.set(resolved.real, slot);
            return [resolved.real, slot];
          };

          const counts = { added: 0, updated: 0, deleted: 0 };
          for (const op of ops) {
            const found = await slotOf(op.path);
            if (!Array.isArray(found)) return found;
            const [, slot] = found;
            if (op.kind === "add") {
              if (slot.next !== null) return error(`apply_patch: file already exists: ${op.path}`);
              slot.next = op.content;
              counts.added++;
            } else if (op.kind === "delete") {
              if (slot.next === null) return error(`apply_patch: file not found: ${op.path}`);
              slot.next = null;
              counts.deleted++;
            } else {
              if (slot.next === null) return error(`apply_patch: file not found: ${op.path}`);
              let updated: string;
              try {
                updated = applyHunks(slot.next, op.hunks, op.path);
              } catch (thrown) {
                if (thrown instanceof PatchError) {
                  return error(`apply_patch: ${thrown.message}; nothing was changed`);
                }
                throw thrown;
              }
              if (op.moveTo === undefined) slot.next = updated;
              else {
                const target = await slotOf(op.moveTo);
                if (!Array.isArray(target)) return target;
                if (target[1] !== slot) {
                  if (target[1].next !== null) {
                    return error(
                      `apply_patch: cannot move ${op.path} to ${op.moveTo}: the file already exists`,
                    );
                  }
                  slot.next = null;
                }
                target[1].next = updated;
              }
              counts.updated++;
            }
          }
          limit.check();
          // From here on the patch is applied whole or not at all: no more cancellation.
          const failure = await commit(root, slots);
          if (failure !== undefined) return error(`apply_patch: ${failure}`);
          const n = ops.length;
          return ok(`Applied patch: ${n} file operation${n === 1 ? "" : "s"}`, counts);
        }),
    },
    options,
  );
}

/** Writes the staged files, then deletes; on a failure restores what was done. */
async function commit(root: Root, slots: Map<string, Slot>): Promise<string | undefined> {
  const changes = [...slots.entries()].filter(
    ([, slot]) => slot.next !== (slot.original?.toString("utf8") ?? null),
  );
  const ordered = [
    ...changes.filter(([, slot]) => slot.next !== null),
    ...changes.filter(([, slot]) => slot.next === null),
  ];
  const done: [string, Slot][] = [];
  for (const [real, slot] of ordered) {
    try {
      if (slot.next === null) await deleteConfined(root, real);
      else await writeConfined(root, real, slot.next);
      done.push([real, slot]);
    } catch (thrown) {
      const restored = await restore(root, done);
      return `could not ${slot.next === null ? "delete" : "write"} ${slot.shown}: ${messageOf(thrown)}; ${
        restored ? "the files already changed were restored" : "some files could not be restored"
      }`;
    }
  }
  return undefined;
}

async function restore(root: Root, done: [string, Slot][]): Promise<boolean> {
  let all = true;
  for (const [real, slot] of done.reverse()) {
    try {
      if (slot.original === null) await deleteConfined(root, real);
      else await writeConfined(root, real, slot.original);
    } catch {
      all = false;
    }
  }
  return all;
}
