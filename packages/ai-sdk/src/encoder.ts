// A run's recorded events as UI message stream chunks: one assistant message per run, a step
// per model turn, one text (and reasoning) part per turn, a tool part per call. Pure and
// deterministic: the same events give the same chunks and ids, so a stream resumed from the
// first event rebuilds exactly the message a live stream built.
import type { RecordedRunEvent } from "@toolnexus/core";
import type {
  FinishReason,
  ToolnexusRequestData,
  ToolnexusRunData,
  UIMessageChunk,
} from "./chunks.js";

/** Turns one run's events, oldest first, into chunks. */
export interface UIMessageEncoder {
  /** The chunks one event becomes (none for events a chat does not show). */
  push(event: RecordedRunEvent): UIMessageChunk[];
  /** Closes what is open and ends the message (`finish`), e.g. when a suspension ends a stream. */
  finish(reason: FinishReason): UIMessageChunk[];
  /**
   * The approval requests of the last suspension shown as tool approvals: a stream that shows
   * one still waiting must end, so that `useChat` can send the person's response.
   */
  readonly approvals: readonly string[];
  /** True once the run's end (done, failed, cancelled) was pushed. */
  readonly ended: boolean;
}

interface RequestLike {
  id: string;
  kind: string;
  prompt?: unknown;
  url?: unknown;
  data?: { schema?: unknown };
  expiresAt?: unknown;
}

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
const num = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined;
const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

/** A new encoder for the run `runId`. */
export function createUIMessageEncoder(runId: string): UIMessageEncoder {
  let stepOpen = false;
  let text: string | undefined; // the open text part's id
  let reasoning: string | undefined;
  let ended = false;
  let approvals: string[] = [];
  const announced = new Set<string>(); // tool calls whose input part exists
  let halted: string[] = []; // calls that halted since the last suspension, in call order
  const approvalOfCall = new Map<string, string>(); // callId -> approval request id
  const callOfRequest = new Map<string, string>(); // request id -> the call that asked
  const shown = new Set<string>(); // approval requests already on their tool part
  const declined = new Set<string>(); // calls whose approval was declined
  const questions = new Map<string, ToolnexusRequestData>(); // shown as data parts

  const closeParts = (out: UIMessageChunk[]) => {
    if (reasoning !== undefined) out.push({ type: "reasoning-end", id: reasoning });
    if (text !== undefined) out.push({ type: "text-end", id: text });
    reasoning = undefined;
    text = undefined;
  };
  const closeStep = (out: UIMessageChunk[]) => {
    closeParts(out);
    if (stepOpen) out.push({ type: "finish-step" });
    stepOpen = false;
  };
  const openStep = (out: UIMessageChunk[]) => {
    if (!stepOpen) out.push({ type: "start-step" });
    stepOpen = true;
  };
  const runPart = (data: ToolnexusRunData): UIMessageChunk => ({
    type: "data-toolnexus-run",
    id: runId,
    data,
  });
  const announce = (out: UIMessageChunk[], callId: string, name: string, input: unknown) => {
    if (announced.has(callId)) return;
    announced.add(callId);
    out.push({ type: "tool-input-available", toolCallId: callId, toolName: name, input });
  };

  const onEvent: Record<string, (event: RecordedRunEvent, out: UIMessageChunk[]) => void> = {
    started: (_e, out) => out.push(runPart({ runId, state: "running" })),
    continued: (_e, out) => out.push(runPart({ runId, state: "running" })),
    turn: (_e, out) => {
      closeStep(out);
      openStep(out);
    },
    reasoning: ({ offset, data }, out) => {
      const delta = str(data.text);
      if (delta === undefined || delta === "") return;
      openStep(out);
      if (text !== undefined) {
        out.push({ type: "text-end", id: text });
        text = undefined;
      }
      if (reasoning === undefined) {
        reasoning = `reasoning-${offset}`;
        out.push({ type: "reasoning-start", id: reasoning });
      }
      out.push({ type: "reasoning-delta", id: reasoning, delta });
    },
    text: ({ offset, data }, out) => {
      const delta = str(data.text);
      if (delta === undefined || delta === "") return;
      openStep(out);
      if (reasoning !== undefined) {
        out.push({ type: "reasoning-end", id: reasoning });
        reasoning = undefined;
      }
      if (text === undefined) {
        text = `text-${offset}`;
        out.push({ type: "text-start", id: text });
      }
      out.push({ type: "text-delta", id: text, delta });
    },
    tool_call: ({ data }, out) => {
      const callId = str(data.callId);
      if (callId === undefined) return;
      openStep(out);
      closeParts(out);
      announce(out, callId, str(data.name) ?? "tool", data.args ?? {});
    },
    tool_result: ({ data }, out) => {
      const callId = str(data.callId);
      if (callId === undefined) return;
      openStep(out);
      closeParts(out);
      announce(out, callId, str(data.name) ?? "tool", {});
      if (data.pending === true) {
        halted.push(callId); // shown when the suspension says what it asks
        return;
      }
      const output = str(data.output) ?? "";
      if (data.isError === true && declined.has(callId)) {
        out.push({ type: "tool-output-denied", toolCallId: callId });
      } else if (data.isError === true) {
        out.push({ type: "tool-output-error", toolCallId: callId, errorText: output });
      } else {
        out.push({ type: "tool-output-available", toolCallId: callId, output });
      }
    },
    progress: ({ data }, out) => {
      const callId = str(data.callId);
      const progress = num(data.progress);
      if (callId === undefined || progress === undefined) return;
      const total = num(data.total);
      const message = str(data.message);
      out.push({
        type: "data-toolnexus-progress",
        id: callId,
        data: {
          toolCallId: callId,
          progress,
          ...(total === undefined ? {} : { total }),
          ...(message === undefined ? {} : { message }),
        },
      });
    },
    suspended: ({ data }, out) => {
      closeStep(out);
      const requests = (Array.isArray(data.requests) ? data.requests : [])
        .map(record)
        .filter((r): r is Record<string, unknown> => r !== undefined && typeof r.id === "string")
        .map((r) => r as unknown as RequestLike);
      // A request asked again (its run went on with other answers and halted anew) keeps the
      // call it was first shown with; the new ones are the calls that halted since the last
      // suspension, in call order, as the checkpoint lists them (when the counts agree).
      const fresh = requests.filter((r) => !callOfRequest.has(r.id) && !questions.has(r.id));
      const zipped = new Map<string, string>();
      if (fresh.length === halted.length) {
        for (const [i, r] of fresh.entries()) zipped.set(r.id, halted[i]!);
      }
      halted = [];
      approvals = [];
      for (const request of requests) {
        const callId = zipped.get(request.id) ?? callOfRequest.get(request.id);
        if (callId !== undefined) callOfRequest.set(request.id, callId);
        if (request.kind === "approval" && callId !== undefined && announced.has(callId)) {
          approvalOfCall.set(callId, request.id);
          approvals.push(request.id);
          if (shown.has(request.id)) continue; // already on the tool part
          shown.add(request.id);
          out.push({ type: "tool-approval-request", approvalId: request.id, toolCallId: callId });
          continue;
        }
        if (questions.has(request.id)) continue; // already shown, still waiting
        const question = questionOf(runId, request, callId);
        questions.set(request.id, question);
        out.push({ type: "data-toolnexus-request", id: request.id, data: question });
      }
      out.push(runPart({ runId, state: "waiting" }));
    },
    answered: ({ data }, out) => {
      const requestId = str(data.requestId);
      if (requestId === undefined) return;
      if (data.ok !== true) {
        for (const [callId, approvalId] of approvalOfCall) {
          if (approvalId === requestId) declined.add(callId);
        }
      }
      const question = questions.get(requestId);
      if (question === undefined) return;
      const answered: ToolnexusRequestData = {
        ...question,
        state: "answered",
        ok: data.ok === true,
      };
      const reason = str(data.reason);
      const by = str(data.by);
      if (reason !== undefined) answered.reason = reason;
      if (by !== undefined) answered.answeredBy = by;
      questions.set(requestId, answered);
      out.push({ type: "data-toolnexus-request", id: requestId, data: answered });
    },
    done: (_e, out) => {
      closeStep(out);
      out.push(runPart({ runId, state: "done" }), { type: "finish", finishReason: "stop" });
      ended = true;
    },
    failed: ({ data }, out) => {
      closeStep(out);
      const code = str(data.code) ?? "failed";
      const message = str(data.message) ?? "the run failed";
      out.push(
        runPart({ runId, state: "failed", code, message }),
        { type: "error", errorText: `the run failed (${code}): ${message}` },
        { type: "finish", finishReason: "error" },
      );
      ended = true;
    },
    cancelled: ({ data }, out) => {
      closeStep(out);
      const by = str(data.by);
      const reason = str(data.reason);
      out.push(
        runPart({
          runId,
          state: "cancelled",
          ...(by === undefined ? {} : { by }),
          ...(reason === undefined ? {} : { reason }),
        }),
        { type: "finish", finishReason: "other" },
      );
      ended = true;
    },
  };

  return {
    push(event) {
      const out: UIMessageChunk[] = [];
      if (ended) return out;
      onEvent[event.type]?.(event, out);
      return out;
    },
    finish(reason) {
      const out: UIMessageChunk[] = [];
      closeStep(out);
      out.push({ type: "finish", finishReason: reason });
      return out;
    },
    get approvals() {
      return approvals;
    },
    get ended() {
      return ended;
    },
  };
}

function questionOf(
  runId: string,
  request: RequestLike,
  callId: string | undefined,
): ToolnexusRequestData {
  const question: ToolnexusRequestData = {
    requestId: request.id,
    runId,
    kind: request.kind,
    state: "waiting",
  };
  const prompt = str(request.prompt);
  const url = str(request.url);
  const schema = record(request.data?.schema);
  const expiresAt = str(request.expiresAt);
  if (prompt !== undefined) question.prompt = prompt;
  if (url !== undefined) question.url = url;
  if (schema !== undefined) question.schema = schema;
  if (expiresAt !== undefined) question.expiresAt = expiresAt;
  if (callId !== undefined) question.toolCallId = callId;
  return question;
}
