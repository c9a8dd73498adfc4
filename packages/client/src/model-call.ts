// One model call of the turn loop: hooks, the run's deadline, streaming, usage, and the error a
// failed call becomes.
import type { Model, ModelCallOptions, ModelRequest, ModelResponse } from "@toolnexus/core";
import { addUsage, jsonCopy } from "@toolnexus/core";
import { timeoutReason } from "./budget.js";
import { checkResponse } from "./checked-response.js";
import { messageOf, RunError } from "./errors.js";
import type { Run } from "./run-state.js";

/** One model call; without hooks or a run deadline it takes one small async frame. */
export function callModel(run: Run): Promise<ModelResponse | "timeout"> {
  const { trace } = run;
  if (trace === undefined) return untracedCall(run);
  const request = { messages: run.messages, tools: run.config.specs };
  return trace.model({ turn: run.turns + 1, request }, () => untracedCall(run));
}

function untracedCall(run: Run): Promise<ModelResponse | "timeout"> {
  return plain(run) ? callModelDirect(run) : callModelGeneral(run);
}

/** Whether the call needs nothing around it: no trace, no model hooks, no run deadline. */
function plain(run: Run): boolean {
  const { hooks } = run.config;
  return (
    hooks.beforeModel === undefined &&
    hooks.afterModel === undefined &&
    run.config.timeoutMs === undefined
  );
}

/**
 * Whether the loop may await this call itself (`startDirect`): no trace, no model hooks, no run
 * deadline. Otherwise the call goes through `callModel`.
 */
export function plainCall(run: Run): boolean {
  return run.trace === undefined && plain(run);
}

/**
 * The model's own promise for a plain call, for the loop to await in its own frame (an async
 * wrapper per turn was a tenth of a one-call run's allocation). Throws when the run was
 * cancelled. What the loop awaited goes to `directResponse`, and what it threw to `modelFailed`.
 */
export function startDirect(run: Run): Promise<ModelResponse> {
  if (run.aborted) throw run.cancelled();
  try {
    const options = runOptions(run);
    const call = generate(
      run,
      { messages: run.messages, tools: run.config.specs },
      options,
      run.turns + 1,
      run,
    );
    // A run in memory stops at its caller's signal even when the model does not; a durable
    // run's signal is made only when the model reads it (its cancel comes with the lease).
    return run.stoppable && run.journal === undefined ? untilAborted(call, run.signal!) : call;
  } catch (thrown) {
    // A model whose generate throws before it returns a promise fails like one that rejects.
    return Promise.reject(thrown);
  }
}

/**
 * After a direct call: a model that ignored its signal must not carry a cancelled run on, and
 * the response must be one the loop can record (see checked-response.ts).
 */
export function directResponse(run: Run, response: ModelResponse): ModelResponse {
  if (run.aborted) throw run.cancelled();
  const taken = accepted(run, response, run.turns + 1);
  countUsage(run, taken);
  return taken;
}

/** `response` as the loop takes it, or a `model_failed` RunError saying what is wrong with it. */
function accepted(run: Run, response: ModelResponse, turn: number): ModelResponse {
  const checked = checkResponse(response);
  if (typeof checked !== "string") return checked;
  throw new RunError(
    "model_failed",
    `model ${run.config.model.id} gave an unusable response on turn ${turn}: ${checked}`,
    run.messages,
    run.runId,
  );
}

/**
 * `promise`, or a rejection with `signal`'s reason as soon as it aborts: a model that ignores
 * its signal must not hold a cancelled or timed-out run until it answers (its late answer is
 * dropped).
 */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason);
    signal.addEventListener("abort", stop, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", stop);
        resolve(value);
      },
      (thrown: unknown) => {
        signal.removeEventListener("abort", stop);
        reject(thrown);
      },
    );
  });
}

async function callModelDirect(run: Run): Promise<ModelResponse> {
  const direct = startDirect(run);
  let response: ModelResponse;
  try {
    response = await direct;
  } catch (thrown) {
    throw modelFailed(run, thrown, run.turns + 1);
  }
  return directResponse(run, response);
}

async function callModelGeneral(run: Run): Promise<ModelResponse | "timeout"> {
  const { hooks } = run.config;
  let request: ModelRequest = { messages: run.messages, tools: run.config.specs };
  const turn = run.turns + 1;
  if (hooks.beforeModel !== undefined) {
    // The hook's own copy of the transcript: editing it in place changes what the model sees
    // this turn (as returning a request does), never the run's transcript.
    const theirs = { messages: jsonCopy(run.messages), tools: run.config.specs };
    request = (await hooks.beforeModel(theirs, { turn })) ?? theirs;
  }

  const left = run.clock.remaining();
  const outer = run.signal;
  let signal = outer;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let unlink: (() => void) | undefined;
  if (left !== undefined) {
    const controller = new AbortController();
    timer = setTimeout(() => controller.abort(timeoutReason(Math.round(left))), Math.max(0, left));
    if (outer !== undefined) {
      const forward = () => controller.abort(outer.reason);
      outer.addEventListener("abort", forward, { once: true });
      unlink = () => outer.removeEventListener("abort", forward);
    }
    signal = controller.signal;
  }
  if (outer?.aborted) throw run.cancelled();

  let response: ModelResponse;
  try {
    const call = generate(run, request, signal === undefined ? {} : { signal }, turn, signal);
    response = await (signal === undefined ? call : untilAborted(call, signal));
  } catch (thrown) {
    if (!outer?.aborted && signal?.aborted) return "timeout";
    throw modelFailed(run, thrown, turn);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    unlink?.();
  }
  if (outer?.aborted) throw run.cancelled();
  if (hooks.afterModel !== undefined)
    response = (await hooks.afterModel(response, { turn })) ?? response;
  response = accepted(run, response, turn);
  countUsage(run, response);
  return response;
}

/** What a failed model call rejects the run with: cancelled, or `model_failed`. */
export function modelFailed(run: Run, thrown: unknown, turn: number): Error {
  if (run.aborted) return run.cancelled();
  return new RunError(
    "model_failed",
    `model ${run.config.model.id} failed on turn ${turn}: ${messageOf(thrown)}`,
    run.messages,
    run.runId,
    thrown,
  );
}

function countUsage(run: Run, response: ModelResponse): void {
  if (response.usage === undefined) return;
  run.usage = addUsage(run.usage, response.usage);
  if (run.listening) run.emit({ type: "usage", usage: response.usage, total: run.usage });
}

/**
 * A durable run's model call options: `signal` reads the run's signal, made only when the model
 * reads it (most never do; see Journal.signal). It is an own enumerable accessor, so spreading
 * the options keeps it, and one getter serves every instance: with an object literal holding a
 * getter of its own per call, the run, its store and its client survived V8's young-generation
 * GCs until the next full GC (about a fifth of a durable cycle's allocation, measured).
 */
class LeasedCallOptions implements ModelCallOptions {
  /** One instance on no run, kept for its hidden class (see Journal.shapes). */
  static readonly shapes: readonly object[] = [];
  declare readonly signal: AbortSignal;
  readonly #run: Run;

  static readonly #signal: PropertyDescriptor = {
    configurable: true,
    enumerable: true,
    get(this: LeasedCallOptions): AbortSignal {
      return this.#run.signal!;
    },
  };

  constructor(run: Run) {
    this.#run = run;
    Object.defineProperty(this, "signal", LeasedCallOptions.#signal);
  }
}

/** The options of a direct model call: the run's signal, if anything can stop the run. */
function runOptions(run: Run): ModelCallOptions {
  if (!run.stoppable) return {};
  // A run in memory has only its caller's signal, made already.
  if (run.journal === undefined) return { signal: run.signal! };
  return new LeasedCallOptions(run);
}

// Not async: an async wrapper around model.generate would cost extra promise hops per turn.
// `stop` says whether the call's signal aborted (the signal itself, or the run).
function generate(
  run: Run,
  request: ModelRequest,
  options: ModelCallOptions,
  turn: number,
  stop: { readonly aborted: boolean } | undefined,
): Promise<ModelResponse> {
  const { model } = run.config;
  if (!run.streaming) {
    if (!run.listening) return model.generate(request, options);
    // Not streamed, but followed or recorded: the turn's reasoning as one event.
    return model.generate(request, options).then((response) => {
      if (!stop?.aborted) emitReasoning(run, response, turn);
      return response;
    });
  }
  if (model.stream === undefined) {
    // A model that cannot stream still shows its answer in a stream: its text as one event.
    return model.generate(request, options).then((response) => {
      if (!stop?.aborted) emitReasoning(run, response, turn);
      if (response.text !== "" && !stop?.aborted) {
        run.emit({ type: "text", delta: response.text, turn });
      }
      return response;
    });
  }
  return streamed(run, model.stream.bind(model), request, options, turn, stop);
}

function emitReasoning(run: Run, response: ModelResponse, turn: number): void {
  if (response.reasoning) run.emit({ type: "reasoning", delta: response.reasoning, turn });
}

async function streamed(
  run: Run,
  stream: NonNullable<Model["stream"]>,
  request: ModelRequest,
  options: ModelCallOptions,
  turn: number,
  stop: { readonly aborted: boolean } | undefined,
): Promise<ModelResponse> {
  let final: ModelResponse | undefined;
  for await (const part of stream(request, options)) {
    // A stream that goes on after its call was stopped: nothing more reaches the run.
    if (stop?.aborted) break;
    if (part.type === "text") run.emit({ type: "text", delta: part.delta, turn });
    else if (part.type === "reasoning") run.emit({ type: "reasoning", delta: part.delta, turn });
    else if (part.type === "finish") final = part.response;
  }
  if (final === undefined) throw new Error("the stream ended without a finish event");
  return final;
}

// See Journal.shapes: options on no run (never read) keep this class's hidden class.
(LeasedCallOptions.shapes as object[]).push(new LeasedCallOptions({} as Run));
