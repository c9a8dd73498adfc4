// A call's outcome: `afterTool`, the call's record (and its `tool_result` event), and the tool
// message the model reads next turn.
import {
  addUsage,
  error,
  isToolResult,
  jsonCopy,
  messageParts,
  type PendingCall,
  type Tool,
  type ToolCall,
  type ToolMessage,
  type ToolResult,
  type Usage,
} from "@toolnexus/core";
import { copyCall } from "./detached-event.js";
import { messageOf } from "./errors.js";
import type { Run } from "./run-state.js";
import type { Attempt } from "./tool-attempt.js";
import type { Hooks, ToolCallRecord } from "./types.js";

/** How one tool call of a turn ended: a tool message, its record, and a pending call if it halted. */
export interface Settled {
  message: ToolMessage;
  record?: ToolCallRecord;
  pending?: Omit<PendingCall, "slot">;
}

/** A call's final result: through `afterTool`, into the record and the transcript. */
export function final(
  run: Run,
  call: ToolCall,
  tool: Tool | undefined,
  args: Record<string, unknown>,
  messageId: string,
  attempt: Attempt,
): Settled | Promise<Settled> {
  // A sub-agent's tokens are the parent run's too.
  if (tool?.source === "agent") rollUp(run, attempt.result);
  const { afterTool } = run.config.hooks;
  if (afterTool === undefined) return settled(run, call, args, attempt.result, attempt);
  return afterToolHook(run, afterTool, call, tool, args, messageId, attempt);
}

export function rollUp(run: Run, result: ToolResult): void {
  const usage = result.metadata?.usage as Usage | undefined;
  if (typeof usage?.totalTokens !== "number" || typeof usage.promptTokens !== "number") return;
  run.usage = addUsage(run.usage, usage);
  if (run.listening) run.emit({ type: "usage", usage, total: run.usage });
}

/** `afterTool` may replace the result; a throw becomes an error result. */
async function afterToolHook(
  run: Run,
  afterTool: NonNullable<Hooks["afterTool"]>,
  call: ToolCall,
  tool: Tool | undefined,
  args: Record<string, unknown>,
  messageId: string,
  attempt: Attempt,
): Promise<Settled> {
  let result = attempt.result;
  try {
    const replaced = await afterTool({
      call: copyCall(call),
      tool,
      args: jsonCopy(args),
      result,
      ctx: run.context(call, messageId),
    });
    if (isToolResult(replaced)) result = replaced;
  } catch (thrown) {
    result = error(`afterTool hook failed: ${messageOf(thrown)}`);
  }
  return settled(run, call, args, result, attempt);
}

/** Records the call's final result and makes its tool message. */
function settled(
  run: Run,
  call: ToolCall,
  args: Record<string, unknown>,
  result: ToolResult,
  attempt: Attempt,
): Settled {
  const record = recordCall(run, call, args, result, result.isError ? "error" : "ok", attempt);
  // Images and resources go on with the message (checked and capped); bad ones become a note.
  const { parts, note } = messageParts(result.parts);
  const message: ToolMessage = {
    role: "tool",
    callId: call.id,
    name: call.name,
    content: note === undefined ? result.output : `${result.output}\n${note}`,
    isError: result.isError,
  };
  if (parts !== undefined) message.parts = parts;
  return { message, record };
}

export function recordCall(
  run: Run,
  call: ToolCall,
  args: Record<string, unknown>,
  result: ToolResult,
  status: ToolCallRecord["status"],
  attempt: Attempt | undefined,
): ToolCallRecord {
  const record: ToolCallRecord = {
    id: call.id,
    name: call.name,
    args,
    result,
    status,
    timedOut: attempt?.timedOut ?? false,
    durationMs: attempt?.durationMs ?? 0,
  };
  if (run.journal !== undefined) record.attempt = run.attemptOf(call);
  run.records.push(record);
  if (run.listening) {
    run.emit({
      type: "tool_result",
      call,
      record,
      isError: status === "error",
      pending: status === "pending",
    });
  }
  return record;
}
