// Approvals an approval policy asked for: what a request that needs people's approval carries in
// its `data.approval`, and the check every place that records an answer makes against it (the
// client's `answer`/`resume`, @toolnexus/web's handler), so nobody approves their own request
// and nobody approves twice.
import { shortId, ToolnexusError } from "./errors.js";
import type { Request } from "./wire.js";

/**
 * What a request raised by an approval policy carries in `request.data.approval`. Plain JSON,
 * kept with the request in every store, so any process can check an answer against it.
 */
export interface ApprovalInfo {
  /** The policy that asked (its `name`). */
  policy: string;
  /** Whom it asks: a group or an addressee the host understands (`"on-call"`), if the policy said. */
  to?: string;
  /** Distinct approvals the call needs in all. */
  needed: number;
  /** Approvals given so far (earlier requests of this call); this request asks for number `given + 1`. */
  given: number;
  /** Who gave them, in order. None of them may answer this request. */
  approvedBy: string[];
  /** Who started the run (`RunOptions.requester`); may not answer. */
  requester?: string;
}

/** Why an answer to an approval request was refused. */
export type ApprovalRefusal = "own_request" | "already_approved" | "anonymous";

/**
 * Thrown when an answer to a request that needs approvals ({@link ApprovalInfo}) comes from the
 * run's own requester, from someone who already approved this call, or from nobody in particular
 * (no `by`: distinct approvals need to know who answered). Nothing was recorded.
 */
export class ApprovalRefusedError extends ToolnexusError {
  readonly requestId: string;
  readonly reason: ApprovalRefusal;
  constructor(requestId: string, reason: ApprovalRefusal) {
    super(
      "approval_refused",
      reason === "own_request"
        ? `request "${shortId(requestId)}" was raised by a run you started; someone else must answer it`
        : reason === "already_approved"
          ? `you already approved this call (request "${shortId(requestId)}" asks for another person's approval); someone else must answer it`
          : `request "${shortId(requestId)}" needs to know who answers it: record the answer with { by } (an identity the host authenticated)`,
    );
    this.requestId = requestId;
    this.reason = reason;
  }
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

/** The approval a request asks for, or `undefined` for a request no policy raised. */
export function approvalOf(request: Request | undefined): ApprovalInfo | undefined {
  const value = request?.data?.approval;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const a = value as Record<string, unknown>;
  if (typeof a.policy !== "string" || !Number.isInteger(a.needed) || !Number.isInteger(a.given)) {
    return undefined;
  }
  if (!isStringList(a.approvedBy)) return undefined;
  const info: ApprovalInfo = {
    policy: a.policy,
    needed: a.needed as number,
    given: a.given as number,
    approvedBy: [...a.approvedBy],
  };
  if (typeof a.to === "string") info.to = a.to;
  if (typeof a.requester === "string") info.requester = a.requester;
  return info;
}

/**
 * Checks that `by` may answer `request`; throws an {@link ApprovalRefusedError} when it may not.
 * A request no policy raised accepts any answer. Call it before recording an answer (the client
 * and @toolnexus/web do).
 */
export function checkApprover(request: Request, by: string | undefined): void {
  const approval = approvalOf(request);
  if (approval === undefined) return;
  if (by === undefined || by === "") throw new ApprovalRefusedError(request.id, "anonymous");
  if (approval.requester !== undefined && by === approval.requester) {
    throw new ApprovalRefusedError(request.id, "own_request");
  }
  if (approval.approvedBy.includes(by)) {
    throw new ApprovalRefusedError(request.id, "already_approved");
  }
}
