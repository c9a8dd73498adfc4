// A call halted in a RunStore while the client's person decides: the next round, in any process
// that shares the store, records the answer, takes the run's lease and continues the call.
import {
  type Answer,
  AnswerConflictError,
  CHECKPOINT_VERSION,
  type Checkpoint,
  emptyUsage,
  type FinishedResult,
  type Lease,
  type PendingCall,
  type RunStore,
  randomId,
  type ToolResult,
} from "@toolnexus/core";
import { fingerprint, type Suspension } from "./suspension.js";

/** The call a durable run holds. */
export interface HeldCall {
  tool: string;
  args: Record<string, unknown>;
}

/** What the next round finds in the store. */
export type Taken =
  /** The run is yours to continue: the answer to apply and the lease to end it with. */
  | { kind: "continue"; lease: Lease; suspension: Suspension; answer: Answer }
  /** A round already finished it (a retried request): its result. */
  | { kind: "done"; result: ToolResult }
  /** Another process holds it right now, or it ended some other way. */
  | { kind: "unavailable"; why: string };

const MODEL = "mcp-server";

function checkpointOf(runId: string, call: HeldCall, s: Suspension, agent?: string): Checkpoint {
  const pending: PendingCall = {
    request: s.request,
    callId: s.callId,
    tool: call.tool,
    args: call.args,
    fingerprint: fingerprint(call.tool, call.args),
    approval: s.approval,
    slot: 1,
  };
  if (s.state !== undefined) pending.state = s.state;
  if (s.round > 0) pending.round = s.round;
  const checkpoint: Checkpoint = {
    version: CHECKPOINT_VERSION,
    runId,
    createdAt: new Date().toISOString(),
    messages: [
      {
        role: "assistant",
        id: randomId("msg"),
        content: "",
        toolCalls: [
          { id: s.callId, name: call.tool, args: call.args, rawArgs: JSON.stringify(call.args) },
        ],
      },
      { role: "tool", callId: s.callId, name: call.tool, content: s.request.prompt, isError: true },
    ],
    pending: [pending],
    turns: 0,
    usage: emptyUsage(),
  };
  if (agent !== undefined) checkpoint.agent = agent;
  return checkpoint;
}

function suspensionOf(p: PendingCall): Suspension {
  const s: Suspension = {
    request: p.request,
    approval: p.approval,
    round: p.approval ? 0 : (p.round ?? 1),
    callId: p.callId,
  };
  if (p.state !== undefined) s.state = p.state;
  return s;
}

/** Durable rounds over one RunStore; `owner` names this process in leases. */
export class DurableRounds {
  private readonly owner = randomId("mcp-server");

  constructor(
    private readonly store: RunStore,
    /** The checkpoint's `agent`, so workers of a client loop sharing the store skip these runs. */
    private readonly agent = "mcp-server",
  ) {}

  /** Halts a call on `s`: a new run, or (with the lease of a continued one) the same run. */
  async halt(call: HeldCall, s: Suspension, lease?: Lease): Promise<string> {
    const runId = lease?.runId ?? randomId("mcprun");
    await this.store.halt(checkpointOf(runId, call, s, this.agent), lease);
    return runId;
  }

  /** What the run waits for, when it still waits: the suspension and the call it belongs to. */
  async waiting(runId: string): Promise<{ suspension: Suspension; call: HeldCall } | Taken> {
    const run = await this.store.getRun(runId);
    if (run === undefined)
      return { kind: "unavailable", why: "its question is unknown here or was pruned" };
    if (run.state === "done") return { kind: "done", result: resultOf(run.result) };
    const p = run.checkpoint?.pending[0];
    if (
      p === undefined ||
      (run.state !== "waiting" && run.state !== "ready" && run.state !== "expired")
    ) {
      return { kind: "unavailable", why: `it is ${run.state}` };
    }
    return { suspension: suspensionOf(p), call: { tool: p.tool, args: p.args } };
  }

  /** Records the answer (as `by`, when known) and takes the run's lease for `leaseMs`. */
  async take(runId: string, answer: Answer, leaseMs: number, by?: string): Promise<Taken> {
    try {
      await this.store.answer(answer, by === undefined ? {} : { by });
    } catch (thrown) {
      // Answered before (a retried round) or past its deadline: the claim tells which answer
      // holds. Any other refusal (malformed data, an unknown request) stops the round.
      if (!(thrown instanceof AnswerConflictError)) {
        return { kind: "unavailable", why: "its answer could not be recorded" };
      }
    }
    const claimed = await this.store.claim({ owner: this.owner, leaseMs, runId });
    if (claimed === undefined) {
      const after = await this.waiting(runId);
      return "kind" in after ? after : { kind: "unavailable", why: "another server continues it" };
    }
    const p = claimed.checkpoint.pending[0];
    if (p === undefined) {
      await this.store.release(claimed.lease);
      return { kind: "unavailable", why: "it holds no question" };
    }
    // The recorded answer wins over this round's (an earlier round's answer is the one kept).
    const expired: Answer = { id: p.request.id, ok: false, reason: "expired" };
    const recorded =
      claimed.answers.find((a) => a.id === p.request.id) ??
      (claimed.reason === "expired" ? expired : answer);
    return {
      kind: "continue",
      lease: claimed.lease,
      suspension: suspensionOf(p),
      answer: recorded,
    };
  }

  /** Ends a continued run with the call's final result. */
  async finish(lease: Lease, call: HeldCall, callId: string, result: ToolResult): Promise<void> {
    const done: FinishedResult = {
      status: "done",
      text: result.output,
      messages: [],
      toolCalls: [
        {
          id: callId,
          name: call.tool,
          args: call.args,
          result,
          status: result.isError ? "error" : "ok",
          timedOut: false,
          durationMs: 0,
        },
      ],
      turns: 0,
      usage: emptyUsage(),
      model: MODEL,
      runId: lease.runId,
      sessionId: undefined,
    };
    await this.store.finish(lease, { state: "done", result: done });
  }

  /** Gives a continued run back after an error, for a retried round to try again. */
  async release(lease: Lease, message: string): Promise<void> {
    await this.store.release(lease, {
      code: "tool_error",
      message,
      at: new Date().toISOString(),
    });
  }
}

function resultOf(result: FinishedResult | undefined): ToolResult {
  const call = result?.toolCalls[0];
  if (call !== undefined) return { output: call.result.output, isError: call.result.isError };
  return { output: result?.text ?? "", isError: false };
}
