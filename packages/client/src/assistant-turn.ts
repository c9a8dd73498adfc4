// A model turn's response as an assistant message in the transcript, with call ids unique
// within the turn and across the run (a provider may repeat them).
import {
  type AssistantMessage,
  callIdOf,
  type Message,
  type ModelResponse,
  randomId,
  type ToolCall,
} from "@toolnexus/core";
import type { Run } from "./run-state.js";

/** The model's response as the turn's assistant message, appended to the transcript. */
export function appendAssistant(run: Run, response: ModelResponse): AssistantMessage {
  run.stopReason = response.stopReason;
  run.finishReason = response.finishReason;
  const id = response.id || randomId("msg");
  const calls = response.toolCalls;
  let toolCalls: ToolCall[] | undefined;
  if (calls.length > 0) {
    // A turn asks for a handful of calls: looking back over the earlier ones is cheaper
    // than a Set until there are dozens.
    const ids = calls.length > 32 ? new Set<string>() : undefined;
    toolCalls = [];
    for (const call of calls) {
      // The model's id when it gave a usable one; otherwise one unique within the run.
      const taken =
        call.id === "" ||
        (ids === undefined
          ? toolCalls.some((earlier) => earlier.id === call.id)
          : ids.has(call.id));
      const kept = taken ? { ...call, id: randomId("call") } : call;
      ids?.add(kept.id);
      toolCalls.push(kept);
    }
    uniqueAcrossTurns(run, toolCalls);
  }
  const assistant = assistantMessage(id, response.text, response.providerData, toolCalls);
  run.messages.push(assistant);
  if (run.listening) run.emit({ type: "message", message: assistant, turn: run.turns });
  return assistant;
}

/**
 * The assistant message, one object literal per shape: a field added after the literal makes a
 * hidden class that a full GC drops while no such message is alive, and the loop's optimized
 * code with it (see turn-loop.ts's results). `providerData` is data the adapter needs back
 * next turn (thinking blocks…), kept in checkpoints as JSON.
 */
function assistantMessage(
  id: string,
  content: string,
  providerData: ModelResponse["providerData"],
  toolCalls: ToolCall[] | undefined,
): AssistantMessage {
  if (toolCalls === undefined) {
    return providerData === undefined
      ? { role: "assistant", id, content }
      : { role: "assistant", id, content, providerData };
  }
  return providerData === undefined
    ? { role: "assistant", id, content, toolCalls }
    : { role: "assistant", id, content, providerData, toolCalls };
}

/**
 * Gives a call whose id an earlier turn of the run already used a `runCallId`, derived from
 * the turn and its position, so `runId` + `ctx.callId` never repeats within a run. It is in
 * the transcript (and so in every checkpoint) before the call runs: a re-execution after a
 * takeover or an answer sees the same id.
 */
function uniqueAcrossTurns(run: Run, toolCalls: ToolCall[]): void {
  const { messages } = run;
  // A run's first turn has nothing to compare with: no Set is made.
  if (run.callIds === undefined && !hasCalls(messages, run.scannedTo)) {
    run.scannedTo = messages.length;
    return;
  }
  run.callIds ??= new Set();
  const earlier = run.callIds;
  for (; run.scannedTo < messages.length; run.scannedTo++) {
    const message = messages[run.scannedTo]!;
    if (message.role !== "assistant" || message.toolCalls === undefined) continue;
    for (const call of message.toolCalls) earlier.add(callIdOf(call));
  }
  for (let i = 0; i < toolCalls.length; i++) {
    const call = toolCalls[i]!;
    if (!earlier.has(call.id)) continue;
    let runCallId = `${call.id}@${run.turns}.${i}`;
    // Only a provider sending such ids on purpose can make this collide; stay unique anyway.
    for (let n = 2; earlier.has(runCallId) || toolCalls.some((c) => c.id === runCallId); n++) {
      runCallId = `${call.id}@${run.turns}.${i}.${n}`;
    }
    toolCalls[i] = { ...call, runCallId };
  }
}

/** True when `messages` from `from` on hold an assistant turn with tool calls. */
function hasCalls(messages: readonly Message[], from: number): boolean {
  for (let i = from; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === "assistant" && message.toolCalls !== undefined) return true;
  }
  return false;
}
