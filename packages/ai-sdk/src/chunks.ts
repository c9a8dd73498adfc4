// The chunks of the AI SDK's UI message stream (protocol v1, read by `useChat` in `ai` 6 and 7)
// that a toolnexus run becomes, written here rather than imported so that a server needs no
// `ai` at runtime. Only chunk types both versions accept are used (ai 6 has no
// `tool-approval-response` chunk, and no `interrupted` finish reason).

/** Why the stream's message ended, as `finish` says it. */
export type FinishReason = "stop" | "tool-calls" | "error" | "other";

/** One chunk of the UI message stream, as this package writes them. */
export type UIMessageChunk =
  | { type: "start"; messageId: string }
  | { type: "finish"; finishReason: FinishReason }
  | { type: "start-step" }
  | { type: "finish-step" }
  | { type: "text-start"; id: string }
  | { type: "text-delta"; id: string; delta: string }
  | { type: "text-end"; id: string }
  | { type: "reasoning-start"; id: string }
  | { type: "reasoning-delta"; id: string; delta: string }
  | { type: "reasoning-end"; id: string }
  | { type: "tool-input-available"; toolCallId: string; toolName: string; input: unknown }
  | { type: "tool-approval-request"; approvalId: string; toolCallId: string }
  | { type: "tool-output-available"; toolCallId: string; output: unknown }
  | { type: "tool-output-error"; toolCallId: string; errorText: string }
  | { type: "tool-output-denied"; toolCallId: string }
  | { type: "data-toolnexus-request"; id: string; data: ToolnexusRequestData }
  | { type: "data-toolnexus-run"; id: string; data: ToolnexusRunData }
  | { type: "data-toolnexus-progress"; id: string; data: ToolnexusProgressData }
  | { type: "error"; errorText: string };

/**
 * A question the run waits on that is not a tool approval (`input`, `url`, `authorization`, …,
 * and an approval whose tool call is unknown): part `data-toolnexus-request`, id = `requestId`.
 * Answer it with `POST /requests/:requestId/answer` of `@toolnexus/web`; the part is then sent
 * again with `state: "answered"`.
 */
export interface ToolnexusRequestData {
  requestId: string;
  runId: string;
  kind: string;
  /** What to show the person (absent when the run recorded the request without it). */
  prompt?: string;
  /** Where to send the person (`url`/`authorization` requests). */
  url?: string;
  /** The JSON Schema the answer's `data` must match (`request.data.schema`). */
  schema?: Record<string, unknown>;
  /** The request's own deadline, ISO. */
  expiresAt?: string;
  /** The tool call that asked, when known. */
  toolCallId?: string;
  state: "waiting" | "answered";
  /** Once answered: approved/given, or declined. */
  ok?: boolean;
  /** Once declined: why (`declined`, `expired`, `cancelled`). */
  reason?: string;
  /** Once answered: who, as the host identified them. */
  answeredBy?: string;
}

/** The run behind the message: part `data-toolnexus-run`, id = `runId`, replaced as it moves. */
export interface ToolnexusRunData {
  runId: string;
  state: "running" | "waiting" | "done" | "failed" | "cancelled";
  /** A failed run's error code (`model_failed`, …) and message. */
  code?: string;
  message?: string;
  /** Who cancelled it, and why. */
  by?: string;
  reason?: string;
}

/** A tool's progress: part `data-toolnexus-progress`, id = the tool call's id. */
export interface ToolnexusProgressData {
  toolCallId: string;
  progress: number;
  total?: number;
  message?: string;
}

/**
 * The data parts a toolnexus stream carries, for `UIMessage<Metadata, ToolnexusDataParts>` in
 * a typed `useChat`.
 */
// A type, not an interface: `UIMessage` wants a record, which an interface is not.
export type ToolnexusDataParts = {
  "toolnexus-request": ToolnexusRequestData;
  "toolnexus-run": ToolnexusRunData;
  "toolnexus-progress": ToolnexusProgressData;
};

/** The header that tells `useChat` the body is a UI message stream. */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = {
  "x-vercel-ai-ui-message-stream": "v1",
};

/** One chunk as an SSE frame: `data: <json>` and a blank line. */
export function chunkFrame(chunk: UIMessageChunk): string {
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** The frame that ends a UI message stream, as the AI SDK's own servers write it. */
export const DONE_FRAME = "data: [DONE]\n\n";
