// The durability seam: what the loop needs from a durable backend. A replay engine (Restate,
// DBOS, Temporal) implements it around its own journal; toolnexus's run stores implement it in
// @toolnexus/client: a lease per claim, a journal entry per call, a wait on the store for answers.

import { ToolnexusError } from "./errors.js";
import { quotedStart } from "./text-head.js";
import type { Answer, Request } from "./wire.js";

/** What a step does: one model turn, or one execution of a tool call. */
export type DurableStepKind = "model" | "tool";

/** One step of a run, as the loop names it for the backend. */
export interface DurableStep {
  /**
   * Unique within the run and the same on every replay: `model/<turn>` for a model turn,
   * `tool/<callId>` for a call's first execution, `tool/<callId>/<requestId>` for its
   * execution with the answer to that request.
   */
  key: string;
  kind: DurableStepKind;
  /**
   * A tool step's call id, and the request whose answer it applies (when it does): for a
   * backend that indexes its records by call (toolnexus's run stores journal by call id).
   */
  callId?: string;
  requestId?: string;
}

/** A request of a halt that waits for its answer, and until when. */
export interface AwaitedRequest {
  request: Request;
  /**
   * ISO time the wait ends (the request's `expiresAt` or the client's `waitTimeoutMs`, the
   * earlier): the backend then answers `{ id, ok: false, reason: "expired" }` itself.
   */
  deadline?: string;
}

/**
 * What the loop needs from a durable backend (`RunOptions.durability` of @toolnexus/client).
 * Under a replay engine everything outside a step must be deterministic: the loop takes ids,
 * request ids and deadlines from step results, never from the clock or the random generator.
 */
export interface Durability {
  /**
   * Runs `work` and records its result under `step.key`; when the key already has a recorded
   * result (a replay), returns it without running `work`. The result is plain JSON. A throw is
   * the backend's to retry or to fail the run with. `work` receives the attempt: 1 the first
   * time, more when the backend runs it again because an earlier execution (a crash, a retry)
   * left no recorded result. Tools see it as `ctx.attempt`.
   */
  step<T>(step: DurableStep, work: (attempt: number) => Promise<T>): Promise<T>;
  /**
   * Waits durably for answers to `requests` (a halt's questions, never empty). Resolves with at
   * least one answer, each to one of the requests; a request past its deadline is answered
   * `{ id, ok: false, reason: "expired" }`. The loop applies them and asks again for the rest.
   */
  answers(requests: readonly AwaitedRequest[]): Promise<Answer[]>;
}

/** The answer a request gets when its deadline passes without one. */
export function expiredAnswer(request: Request | AwaitedRequest): Answer {
  const id = "request" in request ? request.request.id : request.id;
  return { id, ok: false, reason: "expired" };
}

/** The step key of a model turn (`turn` counts from 1). */
export function modelStepKey(turn: number): string {
  return `model/${turn}`;
}

/** The step key of a call's execution: its first, or the one with the answer to `requestId`. */
export function toolStepKey(callId: string, requestId?: string): string {
  return requestId === undefined ? `tool/${callId}` : `tool/${callId}/${requestId}`;
}

/**
 * The largest answer, in characters of JSON, an engine adapter records into a run's journal or
 * a run store keeps (a form's data, not a file): the engine or store keeps every answer whole.
 */
export const MAX_DURABLE_ANSWER_CHARS = 256 * 1024;

/**
 * Throws a `ToolnexusError` (`answer_too_large`) for an answer past {@link MAX_DURABLE_ANSWER_CHARS}.
 * A caller that writes the answer's JSON anyway (a store keeps it as text) passes it as `json`:
 * it is measured instead of written a second time.
 */
export function checkDurableAnswerSize(answer: Answer, json?: string): void {
  if (json === undefined && smallWithoutData(answer)) return;
  const size = (json ?? JSON.stringify(answer)).length;
  if (size > MAX_DURABLE_ANSWER_CHARS) {
    throw new ToolnexusError(
      "answer_too_large",
      `the answer to ${idForMessage(answer.id)} is ${size} characters of JSON; at most ${MAX_DURABLE_ANSWER_CHARS} are recorded`,
    );
  }
}

/** An id as an error message quotes it: whole when it is short, else its start (JSON-quoted). */
function idForMessage(id: unknown): string {
  const text = String(id);
  return text.length <= 80 ? text : quotedStart(text);
}

/**
 * True when `answer` has no data and its strings are short enough that its JSON cannot pass the
 * cap: the common `{ id, ok }` answer then costs no JSON.stringify (every store's `answer` runs
 * this check). Anything else, an unknown key included, is measured by its JSON text.
 */
function smallWithoutData(answer: Answer): boolean {
  let chars = 0;
  for (const key in answer) {
    const value = (answer as unknown as Record<string, unknown>)[key];
    if (key === "ok" && typeof value === "boolean") continue;
    if ((key === "id" || key === "reason") && typeof value === "string") {
      chars += value.length;
      continue;
    }
    return false;
  }
  // JSON writes a character in at most 6 (`\u0001`); keys, quotes and commas take under 64.
  return 6 * chars + 64 <= MAX_DURABLE_ANSWER_CHARS;
}
