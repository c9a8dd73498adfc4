// A call taken up again with the human's answer: what the state kept at its suspension says to
// send. A 2026 `input_required` is answered in `inputResponses` (with the server's requestState
// back byte for byte); a halted 2025 push-style call is replayed with the answers so far; a
// URL-required (-32042) call is retried with the link marked approved.
import type { Answer } from "@toolnexus/core";
import { elicitationKey, toElicitResult, toElicitResults } from "./mapping.js";
import type { McpState, Replayed } from "./state.js";

/** Where a call starts from. */
export interface Resumed {
  params: Record<string, unknown>;
  /** The answers a replayed call gives the questions it asks again, in order. */
  replay: Replayed[];
  /** The links approved in this call so far: asked again, they are not asked again. */
  approved: string[];
}

/**
 * The first send of a call: `params` as is, or with the answer to the question its state kept;
 * `"declined"` when the human did not complete a URL-required authorization.
 */
export function resumeFrom(
  params: Record<string, unknown>,
  state: McpState | undefined,
  answer: Answer | undefined,
): Resumed | "declined" {
  if (state === undefined || answer === undefined) return { params, replay: [], approved: [] };
  if (state.kind === "input_required") {
    return {
      params: {
        ...params,
        inputResponses: { ...state.responses, ...toElicitResults(answer, state.elicitations) },
        ...(state.requestState === undefined ? {} : { requestState: state.requestState }),
      },
      replay: [],
      approved: [],
    };
  }
  if (state.kind === "replay") {
    return {
      params,
      replay: [
        ...state.answers,
        { key: elicitationKey(state.asking), result: toElicitResult(answer, state.asking) },
      ],
      approved: [...(state.approved ?? [])],
    };
  }
  // A task is taken up by task.ts, never sent again.
  if (state.kind === "task") return { params, replay: [], approved: [] };
  if (!answer.ok) return "declined";
  const approved = [...(state.approved ?? [])];
  if (state.asking !== undefined) approved.push(elicitationKey(state.asking));
  return { params, replay: [...(state.answers ?? [])], approved };
}
