// A call waiting for the client's person, and what travels in `requestState` to continue it.
import { createHash } from "node:crypto";
import { canonicalJson, type Request } from "@toolnexus/core";

/** One question a call asked: the Request, the state the tool wants back, and its round. */
export interface Suspension {
  request: Request;
  /** True when the question is the approval a tool's `needsApproval` asks before it runs. */
  approval: boolean;
  /** `pending({ state })` of the tool, handed back as `ctx.resumeState`. */
  state?: unknown;
  /** Which question of this call it is (0 for an approval, then 1, 2…). */
  round: number;
  /** The call's id, the same in every round (`ctx.callId`). */
  callId: string;
}

/**
 * The signed `requestState` of a round: the call it belongs to (tool and a fingerprint of its
 * arguments), and either the suspension itself or the durable run that keeps it.
 */
export type RoundState =
  | { v: 1; tool: string; fp: string; s: Suspension }
  | { v: 1; tool: string; fp: string; run: string };

/** A fingerprint of a call: a round may only continue the call it was raised by. */
export function fingerprint(tool: string, args: Record<string, unknown>): string {
  return createHash("sha256")
    .update(canonicalJson([tool, args]))
    .digest("base64url");
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The payload read back from a verified `requestState`, or undefined when it is not ours. */
export function roundStateOf(value: unknown): RoundState | undefined {
  if (!isObject(value) || value.v !== 1) return undefined;
  if (typeof value.tool !== "string" || typeof value.fp !== "string") return undefined;
  if (typeof value.run === "string") return value as RoundState;
  const s = value.s;
  if (!isObject(s) || !isObject(s.request) || typeof s.callId !== "string") return undefined;
  if (typeof s.request.id !== "string" || typeof s.request.prompt !== "string") return undefined;
  return value as RoundState;
}
