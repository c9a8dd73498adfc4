// Redeploys: a run halted under one release may be continued by the next, where the tool a
// pending call waits on has new arguments, a new name, or is gone. A checkpoint records what each
// pending call was made against (`PendingCall.tool` and `PendingCall.schema`); these are the
// types a tool uses to carry older calls over, and the error when it cannot.
import { CheckpointError, shortId } from "./errors.js";

/** Where a pending call came from when a migration converts its arguments. */
export interface MigrationSource {
  /** The tool's name when the call was made (one of `previousNames`, or its own name). */
  tool: string;
  /** The fingerprint of the input schema the call was made against (`PendingCall.schema`). */
  schema: string;
}

/**
 * How a tool carries over calls made against an earlier input schema, so runs halted before a
 * redeploy continue after it. `from` lists the schema fingerprints `run` converts (the
 * `before` of a {@link ToolChangedError}, or `schemaFingerprint(oldSchema)` from
 * `@toolnexus/client`); `run` maps the old arguments to arguments valid for the current
 * schema. It must be synchronous and pure: it may run once before a run is claimed and again
 * when it continues.
 */
export interface ToolMigration {
  from: readonly string[];
  run(args: Record<string, unknown>, source: MigrationSource): Record<string, unknown>;
}

/**
 * What changed about a pending call's tool since its run halted: `removed` (no tool of that
 * name, and none lists it in `previousNames`: renamed or removed), `schema_changed` (its input
 * schema's fingerprint differs and no migration lists the old one), or `migration_failed` (the
 * tool's migration threw or returned something that is not an arguments object).
 */
export type ToolChange = "removed" | "schema_changed" | "migration_failed";

/**
 * Thrown when a halted run cannot continue because the tool a pending call waits on changed
 * since the halt (a redeploy) and provides no way over (`previousNames`, `migrate`). Nothing of
 * the run ran. A {@link CheckpointError} (code `"tool_changed"`): a host that continues a run by
 * id gets it before anything changes; a worker gives the run back with it as `lastError` (the
 * claim is not counted as an attempt), retried with backoff in case another worker has the
 * tool, and ended `failed` after `maxFailures`. Continuing it by id after a deploy that restores
 * or migrates the tool carries on with the answers recorded before.
 */
export class ToolChangedError extends CheckpointError {
  readonly runId: string;
  readonly callId: string;
  /** The tool's name when the run halted. */
  readonly tool: string;
  readonly change: ToolChange;
  /** The input schema's fingerprint when the run halted. */
  readonly before: string | undefined;
  /** The current tool's input schema fingerprint, when a tool was found. */
  readonly after: string | undefined;
  /** The current tool's name, when it was found under a new name (`previousNames`). */
  readonly current: string | undefined;
  constructor(details: {
    runId: string;
    requestId: string;
    callId: string;
    tool: string;
    change: ToolChange;
    before?: string;
    after?: string;
    current?: string;
    cause?: unknown;
  }) {
    const { runId, tool, change, before, after, current } = details;
    const name = JSON.stringify(shortId(tool));
    const run = shortId(runId);
    const found = current !== undefined && current !== tool ? ` (now "${shortId(current)}")` : "";
    const problem =
      change === "removed"
        ? `tool ${name} is not registered with this client: it was renamed or removed since run ${run} halted on it; register it again, or list ${name} in the new tool's previousNames`
        : change === "schema_changed"
          ? `the input schema of tool ${name}${found} changed since run ${run} halted on it (fingerprint ${before ?? "?"} then, ${after ?? "?"} now); give the tool a migrate whose from lists "${before ?? "?"}", or deploy the earlier schema again`
          : `the migration of tool ${name}${found} from schema ${before ?? "?"} failed for run ${run}: ${messageOf(details.cause)}`;
    super(details.requestId, problem, { cause: details.cause, code: "tool_changed" });
    this.runId = runId;
    this.callId = details.callId;
    this.tool = tool;
    this.change = change;
    this.before = before;
    this.after = after;
    this.current = current;
  }
}

function messageOf(thrown: unknown): string {
  const text = thrown instanceof Error ? thrown.message : String(thrown);
  return text.length > 500 ? `${text.slice(0, 499)}…` : text;
}
