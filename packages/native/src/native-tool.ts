import type { StandardSchemaV1 } from "@standard-schema/spec";
import {
  error,
  type JSONSchema,
  markContextFree,
  type Tool,
  type ToolContext,
  type ToolMigration,
  type ToolResult,
  type ToolSource,
  thrownError,
} from "@toolnexus/core";
import { isThenable, messageOf, toToolResult } from "./normalize.js";
import { type Checked, resolveInput } from "./schema.js";

/**
 * The arguments' schema: any Standard Schema whose output is an object (zod 3.24+, zod 4,
 * valibot, arktype, …), or a plain JSON Schema object.
 */
export type NativeInput = StandardSchemaV1<unknown, Record<string, unknown>> | JSONSchema;

/** `run`'s argument type: a Standard Schema's output type, a plain record otherwise. */
export type ArgsOf<I> = I extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<I>
  : Record<string, unknown>;

interface NativeToolBase<I extends NativeInput | undefined> {
  /** The name the model calls: letters, digits, `_` and `-`, at most 64 characters. */
  name: string;
  /** What the tool does, written for the model. */
  description: string;
  /**
   * The arguments: a Standard Schema (validated through `~standard`, and `run`'s args are
   * typed from it) or a plain JSON Schema object (validated in full). Omitted: no arguments.
   */
  input?: I;
  /**
   * The JSON Schema the model sees, when `input` is a Standard Schema whose library cannot
   * produce one (zod 3, plain valibot) or you want to send something else. Defaults to the
   * library's own conversion of `input`. Typed loosely (`object`) so any library's JSON Schema
   * type fits (`z.toJSONSchema(…)`, valibot's `toJsonSchema(…)`); it must be a plain object.
   */
  inputSchema?: JSONSchema | object;
  /** Default time budget for one call, in milliseconds. */
  timeoutMs?: number;
  /** Ask a human before each call (or when the function says so). */
  needsApproval?: boolean | ((args: ArgsOf<I>, ctx: ToolContext) => boolean | Promise<boolean>);
  /**
   * The approval's prompt, written for the human (`"Deploy web to production?"`). Default: the
   * tool's name and its arguments as JSON.
   */
  approvalPrompt?: (args: ArgsOf<I>) => string;
  /** Defaults to `"native"`. */
  source?: ToolSource;
  /**
   * Names this tool had in earlier releases: a durable run halted on a call under one of them
   * continues with this tool after a redeploy that renamed it.
   */
  previousNames?: readonly string[];
  /**
   * Carries calls made against an earlier input schema over to this one, for runs halted before
   * a redeploy: `from` lists the old schemas' fingerprints (`schemaFingerprint` from
   * `@toolnexus/client`, or the `before` of the `ToolChangedError` a continuation failed with),
   * `run` maps old arguments to new ones (synchronous and pure). Without it, such a run fails
   * with a `ToolChangedError` when continued.
   *
   * @example
   * migrate: { from: ["3f1c9a0b2d4e5f60"], run: ({ env }) => ({ target: env, dryRun: false }) }
   */
  migrate?: ToolMigration;
}

/** A native tool whose `run` takes only the arguments. */
export interface NativeToolWithoutContext<I extends NativeInput | undefined>
  extends NativeToolBase<I> {
  ctx?: false;
  run: (args: ArgsOf<I>) => unknown;
}

/** A native tool that opted in with `ctx: true`: `run` always gets a ToolContext. */
export interface NativeToolWithContext<I extends NativeInput | undefined>
  extends NativeToolBase<I> {
  ctx: true;
  run: (args: ArgsOf<I>, ctx: ToolContext) => unknown;
}

/**
 * Without `ctx: true`, `run` is called with the arguments alone: one that requires a second
 * parameter is refused at compile time with this sentence (TypeScript prints the type it could
 * not assign), rather than with a bare "No overload matches this call".
 */
export type RunWithoutCtx<R> =
  // biome-ignore lint/suspicious/noExplicitAny: only the arity matters here.
  R extends (args: any) => unknown
    ? unknown
    : "run takes (args, ctx): add `ctx: true` to the definition to receive the ToolContext";

/** Either form of {@link nativeTool}'s definition. */
export type NativeToolDefinition<I extends NativeInput | undefined> =
  | NativeToolWithContext<I>
  | NativeToolWithoutContext<I>;

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const invalid = (name: string, checked: { problems: string[] }) =>
  error(`invalid arguments for ${name}: ${checked.problems.join("; ")}`);

/**
 * Turns a plain function into a {@link Tool}.
 *
 * `run` gets the validated arguments; it gets the {@link ToolContext} as a second argument only
 * when you opt in with `ctx: true` (then always an object, even on a direct `execute(args)`).
 * Return a string, any JSON value, nothing, or a ToolResult (e.g. `pending(...)` to ask a human);
 * a value JSON cannot write (a BigInt, a cycle, a function, a symbol) becomes an error result.
 * A throw becomes an error result with its message; invalid arguments become an error result
 * naming each bad field, and `run` is not called.
 *
 * @example
 * const add = nativeTool({
 *   name: "add",
 *   description: "Add two numbers",
 *   input: z.object({ a: z.number(), b: z.number() }),
 *   run: ({ a, b }) => a + b,
 * });
 */
export function nativeTool<I extends NativeInput | undefined = undefined>(
  definition: NativeToolWithContext<I>,
): Tool;
export function nativeTool<
  I extends NativeInput | undefined = undefined,
  // biome-ignore lint/suspicious/noExplicitAny: any second parameter, to be told apart below.
  R extends (args: ArgsOf<I>, ...rest: any[]) => unknown = (args: ArgsOf<I>) => unknown,
>(definition: NativeToolBase<I> & { ctx?: false; run: R & RunWithoutCtx<R> }): Tool;
export function nativeTool<I extends NativeInput | undefined>(
  definition: NativeToolDefinition<I>,
): Tool {
  const { name, description, input, timeoutMs, needsApproval } = definition;
  if (typeof name !== "string" || !NAME.test(name)) {
    throw new TypeError(
      `nativeTool: name ${JSON.stringify(name)} must be 1-64 characters of [a-zA-Z0-9_-]; sanitize() from @toolnexus/core makes any string fit`,
    );
  }
  if (typeof definition.run !== "function") {
    throw new TypeError(`nativeTool "${name}": run must be a function`);
  }
  if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new TypeError(
      `nativeTool "${name}": timeoutMs must be a positive number of milliseconds`,
    );
  }
  const { check, inputSchema } = resolveInput(name, input, definition.inputSchema);
  const wantsContext = definition.ctx === true;
  const run = definition.run as (args: unknown, ctx?: ToolContext) => unknown;

  // Whatever `run` does, execute resolves to a result: a throw or a rejection is an error result.
  // The thrown value stays with the result (off the wire) for a trace's exception event.
  const failed = (thrown: unknown): ToolResult => thrownError(thrown, messageOf(thrown));
  const later = async (value: unknown): Promise<ToolResult> => {
    try {
      return toToolResult(await value);
    } catch (thrown) {
      return failed(thrown);
    }
  };
  // The arguments checked: a result now, or a promise of one when `run` returns a thenable.
  const settle = (
    checked: Checked,
    ctx: ToolContext | undefined,
  ): ToolResult | Promise<ToolResult> => {
    if ("problems" in checked) return invalid(name, checked);
    // Exactly one argument unless the tool opted in, so an optional second parameter is
    // never handed a context by surprise.
    const value = wantsContext ? run(checked.args, ctx ?? {}) : run(checked.args);
    // A run that returns at once is not awaited: awaiting a plain value still costs a
    // promise and a microtask turn per call. A thenable is awaited, as before.
    return isThenable(value) ? later(value) : toToolResult(value);
  };
  const checkedLater = async (
    checking: Promise<Checked>,
    ctx: ToolContext | undefined,
  ): Promise<ToolResult> => {
    try {
      return await settle(await checking, ctx);
    } catch (thrown) {
      return failed(thrown);
    }
  };
  const tool: Tool = {
    name,
    description,
    inputSchema,
    source: definition.source ?? "native",
    // Not an async function: a call whose schema and run answer at once makes one resolved
    // promise, not an async function's frame as well (about a twentieth of a one-call run).
    execute(args: Record<string, unknown>, ctx?: ToolContext): Promise<ToolResult> {
      try {
        const checked = check(args ?? {});
        // Promise.resolve hands a promise (checkedLater's, later's) back as it is.
        return Promise.resolve(
          checked instanceof Promise ? checkedLater(checked, ctx) : settle(checked, ctx),
        );
      } catch (thrown) {
        // Made inside the executor: should even describing the throw fail (a value neither
        // JSON nor String can write), the promise rejects, as the async function's did.
        return new Promise((resolve) => resolve(failed(thrown)));
      }
    },
  };
  // Without `ctx: true`, run never sees the context: the loop need not build one.
  if (!wantsContext) markContextFree(tool.execute);
  if (timeoutMs !== undefined) tool.timeoutMs = timeoutMs;
  redeployFields(tool, definition);
  if (definition.approvalPrompt !== undefined) {
    if (typeof definition.approvalPrompt !== "function") {
      throw new TypeError(
        `nativeTool "${name}": approvalPrompt must be a function of the arguments`,
      );
    }
    tool.approvalPrompt = definition.approvalPrompt as (args: Record<string, unknown>) => string;
  }
  if (typeof needsApproval === "function") {
    const decide = needsApproval as (args: unknown, ctx: ToolContext) => boolean | Promise<boolean>;
    // Invalid arguments never need approval: the call will fail validation without running.
    const decideChecked = (checked: Checked, ctx: ToolContext) =>
      "problems" in checked ? false : decide(checked.args, ctx);
    tool.needsApproval = (args, ctx) => {
      const checked = check(args ?? {});
      return checked instanceof Promise
        ? checked.then((settled) => decideChecked(settled, ctx))
        : decideChecked(checked, ctx);
    };
  } else if (needsApproval !== undefined) {
    tool.needsApproval = needsApproval;
  }
  return tool;
}

/** Checks and copies `previousNames` and `migrate` (see {@link NativeToolBase}). */
function redeployFields(
  tool: Tool,
  definition: { previousNames?: readonly string[]; migrate?: ToolMigration },
): void {
  const { previousNames, migrate } = definition;
  if (previousNames !== undefined) {
    if (
      !Array.isArray(previousNames) ||
      previousNames.some((old) => typeof old !== "string" || !NAME.test(old) || old === tool.name)
    ) {
      throw new TypeError(
        `nativeTool "${tool.name}": previousNames must be a list of earlier tool names (1-64 characters of [a-zA-Z0-9_-]), other than its own`,
      );
    }
    tool.previousNames = [...previousNames];
  }
  if (migrate !== undefined) {
    if (
      typeof migrate !== "object" ||
      migrate === null ||
      !Array.isArray(migrate.from) ||
      migrate.from.some((from) => typeof from !== "string" || from === "") ||
      typeof migrate.run !== "function"
    ) {
      throw new TypeError(
        `nativeTool "${tool.name}": migrate must be { from: [schema fingerprints], run(oldArgs) => newArgs }`,
      );
    }
    tool.migrate = { from: [...migrate.from], run: migrate.run.bind(migrate) };
  }
}
