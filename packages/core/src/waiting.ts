// Questions that wait too long: reminders and an escalation fire after set times while a request
// is unanswered, and its expiry may give the tool a default answer. The times are data in the
// checkpoint (`PendingCall.timers`); the store records which fired, so each fires once across
// every worker and restart.
import type { Request } from "./wire.js";

/**
 * What happens while a question waits (a tool's `waitRules`, or an approval policy's ask).
 * Times count from when the run halts on the question.
 */
export interface WaitRules {
  /** A reminder fires this many ms after the question is asked, once per entry. */
  remindAfterMs?: readonly number[];
  /**
   * After `afterMs`, the question is re-addressed to `to` (its `data.to` becomes `to`) and the
   * worker's `onDue` hook fires with `kind: "escalation"`.
   */
  escalate?: { afterMs: number; to: string };
  /**
   * What the tool gets when the question expires unanswered, instead of
   * `{ ok: false, reason: "expired" }`: e.g. `{ ok: false, reason: "declined" }`, or
   * `{ ok: true, data: { env: "staging" } }` for a safe default.
   */
  onExpiry?: ExpiryAnswer;
}

/** The answer an expired question resolves to ({@link WaitRules.onExpiry}); the id is the request's. */
export interface ExpiryAnswer {
  ok: boolean;
  data?: Record<string, unknown>;
  reason?: "declined" | "cancelled" | "expired";
}

/** One timed step of a waiting request, as kept in the checkpoint. */
export interface RequestTimer {
  kind: "reminder" | "escalation";
  /** ISO time it is due. */
  at: string;
  /** For an escalation: whom the question goes to from then on. */
  to?: string;
}

/** A reminder or escalation that came due, handed to exactly one worker by {@link RunStore.claimDue}. */
export interface DueTimer {
  runId: string;
  requestId: string;
  /** Its position in the request's `PendingCall.timers`. */
  index: number;
  kind: "reminder" | "escalation";
  /** ISO time it was due. */
  at: string;
  to?: string;
  /** The request as it stands after this timer (an escalation re-addressed it). */
  request: Request;
  sessionId?: string;
  agent?: string;
}

/** Options of {@link RunStore.claimDue}. */
export interface ClaimDueOptions {
  /** Epoch ms: timers due at or before it are taken. */
  now: number;
  /** Who takes them (a worker id), kept as who fired them. */
  owner: string;
  /** At most this many (default and most: {@link MAX_DUE_PER_CLAIM}). */
  limit?: number;
}

/** The most timers one `claimDue` hands out. */
export const MAX_DUE_PER_CLAIM = 100;

/** The most reminders one question may have. */
export const MAX_REMINDERS = 20;

function delay(value: unknown, what: string): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new TypeError(
      `${what} must be a number of milliseconds (0 or more), got ${String(value)}`,
    );
  }
  return value;
}

/** The timers of a question asked at `askedAt` (epoch ms) under `rules`, soonest first. */
export function timersOf(rules: WaitRules | undefined, askedAt: number): RequestTimer[] {
  if (rules === undefined) return [];
  const timers: RequestTimer[] = [];
  const reminders = rules.remindAfterMs ?? [];
  if (reminders.length > MAX_REMINDERS) {
    throw new TypeError(`waitRules.remindAfterMs: at most ${MAX_REMINDERS} reminders`);
  }
  for (const ms of reminders) {
    timers.push({
      kind: "reminder",
      at: new Date(askedAt + delay(ms, "waitRules.remindAfterMs")).toISOString(),
    });
  }
  if (rules.escalate !== undefined) {
    const { afterMs, to } = rules.escalate;
    if (typeof to !== "string" || to === "") {
      throw new TypeError("waitRules.escalate.to must be a non-empty string (whom to ask next)");
    }
    timers.push({
      kind: "escalation",
      at: new Date(askedAt + delay(afterMs, "waitRules.escalate.afterMs")).toISOString(),
      to,
    });
  }
  return timers.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}

/** A request re-addressed by an escalation: `data.to` becomes `to`. */
export function readdressed(request: Request, to: string): Request {
  return { ...request, data: { ...(request.data ?? {}), to } };
}

/** {@link ClaimDueOptions} checked by a store: `now` a finite time, `owner` a worker id, `limit` capped. */
export function checkClaimDue(
  options: ClaimDueOptions,
  where: string,
): { now: number; owner: string; limit: number } {
  const { now, owner, limit } = (options ?? {}) as Partial<ClaimDueOptions>;
  if (typeof now !== "number" || !Number.isFinite(now)) {
    throw new TypeError(`${where}: now must be a time in epoch milliseconds`);
  }
  if (typeof owner !== "string" || owner === "" || owner.length > 256) {
    throw new TypeError(`${where}: owner must be a non-empty string of at most 256 characters`);
  }
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
    throw new TypeError(`${where}: limit must be a whole number of at least 1`);
  }
  return { now, owner, limit: Math.min(limit ?? MAX_DUE_PER_CLAIM, MAX_DUE_PER_CLAIM) };
}

/** A pending call's timers as a store keeps them: well-formed ones only, due time in epoch ms. */
export function storedTimers(
  timers: unknown,
): { kind: "reminder" | "escalation"; atMs: number; to?: string }[] {
  if (!Array.isArray(timers)) return [];
  const kept: { kind: "reminder" | "escalation"; atMs: number; to?: string }[] = [];
  for (const timer of timers.slice(0, MAX_REMINDERS + 1) as Partial<RequestTimer>[]) {
    const atMs = typeof timer?.at === "string" ? Date.parse(timer.at) : Number.NaN;
    if (Number.isNaN(atMs)) continue;
    if (timer.kind === "reminder") kept.push({ kind: "reminder", atMs });
    else if (timer.kind === "escalation" && typeof timer.to === "string" && timer.to !== "") {
      kept.push({ kind: "escalation", atMs, to: timer.to.slice(0, 256) });
    }
  }
  return kept;
}
