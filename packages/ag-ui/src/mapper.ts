// A durable run's recorded events as AG-UI events. Stateful, because AG-UI frames what the
// run records flat: a turn is a step that stays open until the next, text and reasoning are
// messages with a start and an end, and whatever is open is closed before the run's last event.
// Ids come from the recorded offsets, so following the same run again mints the same ids.
import {
  type AGUIEvent,
  EventType,
  type Interrupt,
  type RunErrorEvent,
  type RunFinishedEvent,
  type RunStartedEvent,
} from "@ag-ui/core";
import type { RecordedRunEvent, Request as ToolnexusRequest } from "@toolnexus/core";
import { interruptOf, METADATA_KEY } from "./interrupts.js";

/** What a halted call's request stands at, for its interrupt. */
export interface PendingCallInfo {
  /** The tool call it halted. */
  toolCallId?: string;
  /** Its deadline. */
  expiresAt?: string;
  /** False when it no longer waits (answered meanwhile): it is no interrupt. Default true. */
  open?: boolean;
}

/** Which AG-UI run the events belong to (the ids of the RunAgentInput that asked for them). */
export interface AgUiRunIds {
  threadId: string;
  runId: string;
}

/** Turns recorded events into AG-UI events, one run (one stream) at a time. */
export interface AgUiEventMapper {
  /** The RUN_STARTED every stream begins with. */
  runStarted(): RunStartedEvent;
  /**
   * The AG-UI events one recorded event becomes (often none or one; more when it closes what was
   * open). `pending` names the halted calls of a `suspended` event by request id.
   */
  map(event: RecordedRunEvent, pending?: ReadonlyMap<string, PendingCallInfo>): AGUIEvent[];
  /** Closes whatever is open and ends the run with RUN_ERROR. */
  fail(code: string, message: string): AGUIEvent[];
  /** True once RUN_FINISHED or RUN_ERROR was returned: nothing more belongs to this run. */
  readonly ended: boolean;
}

/** The names of the CUSTOM events a run's stream carries. */
export const CUSTOM_EVENT_NAMES = {
  /** `{ callId, progress, total?, message? }`: a tool reported progress. */
  progress: "toolnexus.progress",
  /** `{ requestId, ok, reason?, by? }`: an answer was recorded (never the answer's data). */
  answered: "toolnexus.answered",
  /** `{ by?, reason? }`: someone asked the running run to stop. */
  cancelRequested: "toolnexus.cancel_requested",
} as const;

interface Open {
  messageId: string;
  turn: unknown;
}

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** Makes a mapper for one AG-UI run. */
export function createAgUiEventMapper(ids: AgUiRunIds): AgUiEventMapper {
  const { threadId, runId } = ids;
  let step: string | undefined;
  let text: Open | undefined;
  let reasoning: Open | undefined;
  // The assistant message each turn's tool calls belong to: its text's, when it had text.
  let turnMessage: Open | undefined;
  let ended = false;

  const closeText = (out: AGUIEvent[]) => {
    if (text === undefined) return;
    out.push({ type: EventType.TEXT_MESSAGE_END, messageId: text.messageId });
    text = undefined;
  };
  const closeReasoning = (out: AGUIEvent[]) => {
    if (reasoning === undefined) return;
    const { messageId } = reasoning;
    out.push({ type: EventType.REASONING_MESSAGE_END, messageId });
    out.push({ type: EventType.REASONING_END, messageId });
    reasoning = undefined;
  };
  const closeAll = (out: AGUIEvent[]) => {
    closeText(out);
    closeReasoning(out);
    if (step !== undefined) out.push({ type: EventType.STEP_FINISHED, stepName: step });
    step = undefined;
  };
  const end = (out: AGUIEvent[], last: RunFinishedEvent | RunErrorEvent) => {
    closeAll(out);
    out.push(last);
    ended = true;
    return out;
  };

  const interrupts = (
    requests: unknown,
    pending: ReadonlyMap<string, PendingCallInfo> | undefined,
  ): Interrupt[] =>
    (Array.isArray(requests) ? (requests as ToolnexusRequest[]) : [])
      .filter((request) => pending?.get(request.id)?.open !== false)
      .map((request) => {
        const known = pending?.get(request.id);
        return interruptOf(request, {
          ...(known?.toolCallId === undefined ? {} : { toolCallId: known.toolCallId }),
          ...(known?.expiresAt === undefined ? {} : { expiresAt: known.expiresAt }),
        });
      });

  return {
    get ended() {
      return ended;
    },
    runStarted: () => ({ type: EventType.RUN_STARTED, threadId, runId }),
    fail: (code, message) => (ended ? [] : end([], { type: EventType.RUN_ERROR, code, message })),
    map(event, pending) {
      const out: AGUIEvent[] = [];
      if (ended) return out;
      const { data } = event;
      const id = `${event.runId}:${event.offset}`;
      switch (event.type as string) {
        case "turn": {
          closeAll(out);
          step = `turn ${String(data.turn)}`;
          turnMessage = undefined;
          out.push({ type: EventType.STEP_STARTED, stepName: step });
          return out;
        }
        case "text": {
          const delta = str(data.text) ?? "";
          if (delta === "") return out;
          closeReasoning(out);
          if (text !== undefined && text.turn !== data.turn) closeText(out);
          if (text === undefined) {
            text = { messageId: id, turn: data.turn };
            turnMessage = text;
            out.push({ type: EventType.TEXT_MESSAGE_START, messageId: id, role: "assistant" });
          }
          out.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: text.messageId, delta });
          return out;
        }
        case "reasoning": {
          const delta = str(data.text) ?? "";
          if (delta === "") return out;
          closeText(out);
          if (reasoning !== undefined && reasoning.turn !== data.turn) closeReasoning(out);
          if (reasoning === undefined) {
            reasoning = { messageId: id, turn: data.turn };
            out.push({ type: EventType.REASONING_START, messageId: id });
            out.push({ type: EventType.REASONING_MESSAGE_START, messageId: id, role: "reasoning" });
          }
          out.push({
            type: EventType.REASONING_MESSAGE_CONTENT,
            messageId: reasoning.messageId,
            delta,
          });
          return out;
        }
        case "tool_call": {
          closeText(out);
          closeReasoning(out);
          const toolCallId = str(data.callId) ?? id;
          out.push({
            type: EventType.TOOL_CALL_START,
            toolCallId,
            toolCallName: str(data.name) ?? "unknown",
            ...(turnMessage === undefined ? {} : { parentMessageId: turnMessage.messageId }),
          });
          out.push({
            type: EventType.TOOL_CALL_ARGS,
            toolCallId,
            delta: JSON.stringify(data.args ?? {}),
          });
          out.push({ type: EventType.TOOL_CALL_END, toolCallId });
          return out;
        }
        case "tool_result": {
          // A call that halted for a person has no result yet: its interrupt says what it waits for.
          if (data.pending === true) return out;
          closeText(out);
          closeReasoning(out);
          out.push({
            type: EventType.TOOL_CALL_RESULT,
            messageId: id,
            toolCallId: str(data.callId) ?? id,
            content: str(data.output) ?? "",
            role: "tool",
            metadata: {
              [METADATA_KEY]: {
                name: data.name,
                isError: data.isError === true,
                timedOut: data.timedOut === true,
              },
            },
          });
          return out;
        }
        case "progress":
          out.push({ type: EventType.CUSTOM, name: CUSTOM_EVENT_NAMES.progress, value: data });
          return out;
        case "answered":
          out.push({ type: EventType.CUSTOM, name: CUSTOM_EVENT_NAMES.answered, value: data });
          return out;
        case "cancel_requested":
          out.push({
            type: EventType.CUSTOM,
            name: CUSTOM_EVENT_NAMES.cancelRequested,
            value: data,
          });
          return out;
        case "suspended": {
          const list = interrupts(data.requests, pending);
          // Every question was answered meanwhile: the run goes on without asking anyone.
          if (list.length === 0) return out;
          return end(out, {
            type: EventType.RUN_FINISHED,
            threadId,
            runId,
            outcome: { type: "interrupt", interrupts: list },
          });
        }
        case "done":
          return end(out, {
            type: EventType.RUN_FINISHED,
            threadId,
            runId,
            ...(typeof data.text === "string" ? { result: data.text } : {}),
            outcome: { type: "success" },
          });
        case "failed":
          return end(out, {
            type: EventType.RUN_ERROR,
            message: str(data.message) ?? "the run failed",
            ...(typeof data.code === "string" ? { code: data.code } : {}),
          });
        case "cancelled":
          return end(out, {
            type: EventType.RUN_FINISHED,
            threadId,
            runId,
            outcome: { type: "cancelled" },
          });
        default:
          // `started`, `continued` (a worker's id is nobody's business in a chat), and any type
          // a newer store records that this version does not know.
          return out;
      }
    },
  };
}
