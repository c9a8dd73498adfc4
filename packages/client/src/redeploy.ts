// Redeploys: the tool a halted call waits on may have changed since the halt (new arguments, a
// new name, gone). Each pending call records the tool's name and input schema fingerprint; here
// a continuation finds the tool it now runs on, carries the arguments over with the tool's
// migration, or refuses with a ToolChangedError before anything runs.
import {
  type Answer,
  CheckpointError,
  type ClaimedRun,
  copyWireData,
  type PendingCall,
  type RequestInfo,
  type Tool,
  type ToolCall,
  ToolChangedError,
} from "@toolnexus/core";
import type { ResolvedConfig } from "./config.js";
import { schemaFingerprint } from "./fingerprint.js";
import { expiryAnswer } from "./suspension.js";

/** What a pending call runs on now: the tool (maybe renamed) and its (maybe migrated) arguments. */
export interface ResolvedCall {
  tool: Tool;
  args: Record<string, unknown>;
}

/** The registered tool that had this name in an earlier release, in registration order. */
export function renamedTo(config: ResolvedConfig, name: string): Tool | undefined {
  for (const tool of config.tools.values()) {
    if (tool.previousNames?.includes(name)) return tool;
  }
  return undefined;
}

/**
 * The tool and arguments a pending call continues with. Its own name first, else a tool listing
 * it in `previousNames`; when the input schema's fingerprint differs from the one recorded at the
 * halt, the tool's `migrate` must list the old one. A call recorded before schema fingerprints
 * (no `schema`) continues as it always did: by name, unchecked.
 */
export function resolvePending(
  config: ResolvedConfig,
  runId: string,
  waiting: PendingCall,
): ResolvedCall {
  const { schema: before } = waiting;
  const tool = config.tools.get(waiting.tool) ?? renamedTo(config, waiting.tool);
  const details = {
    runId,
    requestId: waiting.request.id,
    callId: waiting.callId,
    tool: waiting.tool,
    before,
  };
  if (tool === undefined) {
    if (before === undefined) {
      throw new CheckpointError(
        waiting.request.id,
        `tool "${waiting.tool}" is not registered with this client; register it to continue run ${runId}`,
      );
    }
    throw new ToolChangedError({ ...details, change: "removed" });
  }
  const after = schemaFingerprint(tool.inputSchema);
  if (before === undefined || before === after) return { tool, args: waiting.args };
  const changed = { ...details, after, current: tool.name };
  const { migrate } = tool;
  if (migrate === undefined || !migrate.from.includes(before)) {
    throw new ToolChangedError({ ...changed, change: "schema_changed" });
  }
  let args: unknown;
  try {
    // A copy: the stored arguments stay as they were if the migration edits its input.
    args = migrate.run(structuredClone(waiting.args), { tool: waiting.tool, schema: before });
  } catch (thrown) {
    throw new ToolChangedError({ ...changed, change: "migration_failed", cause: thrown });
  }
  // The new arguments go into the transcript and any later checkpoint: plain JSON only.
  const copied =
    typeof args === "object" && args !== null && !Array.isArray(args)
      ? copyWireData(args, "args")
      : undefined;
  if (copied === undefined || !("value" in copied)) {
    const problem =
      copied === undefined
        ? new TypeError("migrate.run must return an arguments object")
        : new TypeError(
            `migrate.run returned arguments that are not JSON: ${copied.issue.message}`,
          );
    throw new ToolChangedError({ ...changed, change: "migration_failed", cause: problem });
  }
  return { tool, args: copied.value as Record<string, unknown> };
}

/**
 * The transcript's call follows what runs now: the model reads, on its next turn, a call of a
 * tool it has (its current name) with the arguments that ran, paired with the same result id.
 */
export function carryOver(call: ToolCall, resolved: ResolvedCall, waiting: PendingCall): void {
  if (resolved.tool.name !== call.name) call.name = resolved.tool.name;
  if (resolved.args !== waiting.args) {
    call.args = resolved.args;
    call.rawArgs = JSON.stringify(resolved.args);
  }
}

/**
 * Continuing a run that failed while halted (by id, or after `RunStore.retry`, once a deploy
 * fixed what failed it): ending it `failed` closed its requests (`applied`) without running
 * their calls and dropped its journal. A pending call whose request is `applied` but not
 * journaled is such a call: the answer recorded before the failure is applied now, and a
 * request that had none resolves as if it expired (its `onExpiry`, else declined: nobody can
 * answer a closed request). A call that had run with its answer before the failure runs again:
 * at least once, as after a takeover.
 */
export function reopened(claimed: ClaimedRun, requests: readonly RequestInfo[]): ClaimedRun {
  const { pending } = claimed.checkpoint;
  if (pending.length === 0) return claimed;
  const journaled = new Set(claimed.journal.map((entry) => entry.callId));
  const given = new Set(claimed.answers.map((answer) => answer.id));
  let answers: Answer[] | undefined;
  for (const { request, callId, waitRules } of pending) {
    if (given.has(request.id) || journaled.has(callId)) continue;
    const info = requests.find((candidate) => candidate.request.id === request.id);
    if (info?.state !== "applied") continue;
    answers ??= [...claimed.answers];
    answers.push(info.answer ?? expiryAnswer(request.id, waitRules));
  }
  return answers === undefined ? claimed : { ...claimed, answers };
}
