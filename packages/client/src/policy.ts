// Approval policies: host code that decides, before a tool runs, whether the call runs (allow),
// is refused with a reason the model reads (deny), or waits for people's approval (ask: whom,
// with what prompt, how many distinct people). The first policy with an opinion decides.
import {
  type ApprovalInfo,
  approvalOf,
  callIdOf,
  MAX_ACTOR_CHARS,
  type PolicyDecisionRecord,
  type Request,
  randomId,
  type Tool,
  type ToolCall,
  type ToolResult,
  type ToolSource,
  type WaitRules,
} from "@toolnexus/core";

/** What a policy decides on: the tool, the call's arguments, who started the run, and `extra`. */
export interface PolicyInput {
  tool: { name: string; source: ToolSource; annotations: Readonly<Record<string, unknown>> };
  args: Readonly<Record<string, unknown>>;
  /** Who started the run (`RunOptions.requester`), if the host said. */
  requester: string | undefined;
  /** The run's `extra` (the client's merged with the run's). */
  extra: Readonly<Record<string, unknown>> | undefined;
  runId: string;
  sessionId: string | undefined;
  agent: string | undefined;
}

/**
 * A policy's decision. `allow`: the call runs without asking anyone. `deny`: it does not run,
 * and the model reads `reason` as the tool's result. `ask`: the run waits for `approvals`
 * (default 1) distinct people, none of them the run's requester, addressed to `to`.
 */
export type PolicyDecision =
  | { decision: "allow" }
  | { decision: "deny"; reason: string }
  | {
      decision: "ask";
      /** Whom to ask: a group or an addressee your host understands (kept as `data.to`). */
      to?: string;
      /** What the approvers read; default: the tool's `approvalPrompt`, else the arguments. */
      prompt?: string;
      /** Distinct people who must approve; default 1, at most {@link MAX_APPROVALS}. */
      approvals?: number;
      /** Reminders, an escalation and the expiry's answer; default: the tool's `waitRules`. */
      waitRules?: WaitRules;
      /**
       * When the approvals must be in (a Date, epoch ms or an ISO string), for every request of
       * the call; then `waitRules.onExpiry` applies (default: declined as expired).
       */
      expiresAt?: Date | number | string;
    };

/**
 * An approval policy: `decide` returns a {@link PolicyDecision}, or `undefined` to leave the call
 * to the next policy (and, when none decides, to the tool's own `needsApproval`). A `decide` that
 * throws or returns something else denies the call.
 */
export interface ApprovalPolicy {
  /** Who decided, in the audit trail: `policy:<name>`. */
  name: string;
  decide(input: PolicyInput): PolicyDecision | undefined | Promise<PolicyDecision | undefined>;
}

/** The most of a deny's reason that is kept. */
export const MAX_REASON_CHARS = 2_000;

/** The most approvals one call may need. */
export const MAX_APPROVALS = 10;

/** How a call's result records a policy's decision (`result.metadata.policy`). */
export interface PolicyRecord {
  name: string;
  decision: "allow" | "deny" | "ask";
  /** `policy:<name>`: the policy as who answered. */
  by: string;
  reason?: string;
  /** For `ask`: who approved, in order. */
  approvedBy?: string[];
}

/** A decision as the run's checkpoint keeps it (`Checkpoint.decisions`). */
export function decisionOf(call: ToolCall, tool: Tool, record: PolicyRecord): PolicyDecisionRecord {
  const kept: PolicyDecisionRecord = {
    callId: callIdOf(call),
    tool: tool.name,
    policy: record.name,
    decision: record.decision,
    by: record.by,
  };
  if (record.reason !== undefined) kept.reason = record.reason;
  if (record.approvedBy !== undefined) kept.approvedBy = [...record.approvedBy];
  return kept;
}

/** The `by` a policy's own decision is recorded with. */
export function policyActor(name: string): string {
  return `policy:${name}`;
}

/** Checks `createClient({ policies })`. */
export function checkPolicies(policies: unknown): readonly ApprovalPolicy[] {
  if (policies === undefined) return [];
  if (!Array.isArray(policies)) {
    throw new TypeError("createClient: `policies` must be an array of { name, decide }");
  }
  const names = new Set<string>();
  for (const policy of policies as unknown[]) {
    const p = policy as Partial<ApprovalPolicy> | null;
    if (typeof p?.decide !== "function" || typeof p.name !== "string" || p.name === "") {
      throw new TypeError(
        "createClient: every entry of `policies` must be { name: string, decide(input) }",
      );
    }
    if (p.name.length > 200) throw new TypeError("createClient: a policy's name is too long");
    if (names.has(p.name)) {
      throw new TypeError(`createClient: two policies are named "${p.name}"`);
    }
    names.add(p.name);
  }
  return [...(policies as ApprovalPolicy[])];
}

/** Checks `RunOptions.requester`: an identity the host authenticated. */
export function checkRequester(value: unknown): string {
  if (typeof value !== "string" || value === "" || value.length > MAX_ACTOR_CHARS) {
    throw new TypeError(
      `run: requester must be a non-empty string of at most ${MAX_ACTOR_CHARS} characters`,
    );
  }
  return value;
}

/** A decision and the policy that made it. */
export interface Decided {
  policy: string;
  decision: PolicyDecision;
}

function isDecision(value: unknown): value is PolicyDecision {
  if (typeof value !== "object" || value === null) return false;
  const d = value as Record<string, unknown>;
  if (d.decision === "allow") return true;
  if (d.decision === "deny") return typeof d.reason === "string";
  if (d.decision !== "ask") return false;
  if (d.to !== undefined && (typeof d.to !== "string" || d.to === "" || d.to.length > 256)) {
    return false;
  }
  if (d.prompt !== undefined && typeof d.prompt !== "string") return false;
  if (d.expiresAt !== undefined && Number.isNaN(new Date(d.expiresAt as string).getTime())) {
    return false;
  }
  const n = d.approvals;
  return (
    n === undefined || (Number.isInteger(n) && (n as number) >= 1 && (n as number) <= MAX_APPROVALS)
  );
}

/** Asks the policies in order; the first decision wins. `undefined` when none decides. */
export async function decide(
  policies: readonly ApprovalPolicy[],
  tool: Tool,
  call: ToolCall,
  run: Pick<PolicyInput, "requester" | "extra" | "runId" | "sessionId" | "agent">,
): Promise<Decided | undefined> {
  const input: PolicyInput = {
    tool: { name: tool.name, source: tool.source, annotations: tool.annotations ?? {} },
    args: call.args,
    requester: run.requester,
    extra: run.extra,
    runId: run.runId,
    sessionId: run.sessionId,
    agent: run.agent,
  };
  for (const policy of policies) {
    let decision: unknown;
    try {
      decision = await policy.decide(input);
    } catch {
      // A broken policy must not let the tool run unchecked; its error may hold secrets, so
      // the model reads only that it failed.
      return { policy: policy.name, decision: { decision: "deny", reason: "the policy failed" } };
    }
    if (decision === undefined) continue;
    if (!isDecision(decision)) {
      return {
        policy: policy.name,
        decision: { decision: "deny", reason: "the policy returned an invalid decision" },
      };
    }
    return { policy: policy.name, decision };
  }
  return undefined;
}

/** The result a denied call gets: the reason, for the model, and the decision on record. */
export function deniedResult(policy: string, reason: string): ToolResult {
  // The reason is the host's words; capped, so an event or a record stays small.
  reason = reason.slice(0, MAX_REASON_CHARS);
  const record: PolicyRecord = { name: policy, decision: "deny", by: policyActor(policy), reason };
  return {
    output: `denied by policy ${policy}: ${reason}`,
    isError: true,
    metadata: { policy: record },
  };
}

/** A result with the decision that let the call run on record (a copy; the tool's is kept). */
export function withPolicy(result: ToolResult, record: PolicyRecord): ToolResult {
  return { ...result, metadata: { ...(result.metadata ?? {}), policy: record } };
}

/** The first approval request of a policy's `ask`. */
export function askRequest(
  policy: string,
  ask: Extract<PolicyDecision, { decision: "ask" }>,
  defaultPrompt: string,
  requester: string | undefined,
): Request {
  const approval: ApprovalInfo = {
    policy,
    needed: ask.approvals ?? 1,
    given: 0,
    approvedBy: [],
  };
  if (ask.to !== undefined) approval.to = ask.to;
  if (requester !== undefined) approval.requester = requester;
  const expiresAt = ask.expiresAt === undefined ? undefined : new Date(ask.expiresAt).toISOString();
  return approvalRequest(ask.prompt ?? defaultPrompt, approval, expiresAt);
}

function approvalRequest(
  prompt: string,
  approval: ApprovalInfo,
  expiresAt: string | undefined,
): Request {
  const data: Record<string, unknown> = { approval: { ...approval } };
  if (approval.to !== undefined) data.to = approval.to;
  const step =
    approval.needed === 1
      ? prompt
      : `${prompt} (approval ${approval.given + 1} of ${approval.needed}${
          approval.approvedBy.length === 0 ? "" : `; approved by ${approval.approvedBy.join(", ")}`
        })`;
  const request: Request = {
    id: randomId("pnd"),
    kind: "approval",
    prompt: step,
    data: { ...data, base: prompt },
  };
  if (expiresAt !== undefined) request.expiresAt = expiresAt;
  return request;
}

/**
 * After an ok answer to a policy's approval request: the next request when more approvals are
 * needed (the approver `by` added to those who may not answer it), else `undefined`. The
 * request's `data.to` is kept, so an escalation holds for the next approvals too.
 */
export function nextApproval(request: Request, by: string | undefined): Request | undefined {
  const approval = approvalOf(request);
  if (approval === undefined) return undefined;
  const given = approval.given + 1;
  if (given >= approval.needed) return undefined;
  const next: ApprovalInfo = { ...approval, given, approvedBy: [...approval.approvedBy] };
  if (by !== undefined) next.approvedBy.push(by);
  const to = typeof request.data?.to === "string" ? request.data.to : undefined;
  if (to !== undefined) next.to = to;
  const base = typeof request.data?.base === "string" ? request.data.base : request.prompt;
  return approvalRequest(base, next, request.expiresAt);
}

/** The record of a call that ran after its policy's approvals (`approvedBy`: who approved). */
export function approvedRecord(request: Request, by: string | undefined): PolicyRecord | undefined {
  const approval = approvalOf(request);
  if (approval === undefined) return undefined;
  const approvedBy = [...approval.approvedBy];
  if (by !== undefined) approvedBy.push(by);
  return { name: approval.policy, decision: "ask", by: policyActor(approval.policy), approvedBy };
}
