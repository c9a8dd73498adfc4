// What a suspended MCP call keeps in the checkpoint (handed back as `ctx.resumeState`).
import type { Elicitation, ElicitResult } from "./mapping.js";

export const STATE_VERSION = 1;

/** An answer given to a push-style question, by the question's fingerprint. */
export interface Replayed {
  key: string;
  result: ElicitResult;
}

export type McpState =
  | {
      mcp: typeof STATE_VERSION;
      kind: "input_required";
      /** The server's `requestState`, byte for byte. */
      requestState?: string;
      /** The elicitations waiting for the human, by the server's keys. */
      elicitations: Record<string, Elicitation>;
      /** Responses the host gave already (sampling, roots), by the server's keys. */
      responses: Record<string, unknown>;
    }
  | {
      mcp: typeof STATE_VERSION;
      kind: "replay";
      /** The answers to give a replayed push-style call, in order, with what they answered. */
      answers: Replayed[];
      /** The question being asked now. */
      asking: Elicitation;
      /** The URL-required (-32042) links approved earlier in this call, by fingerprint. */
      approved?: string[];
    }
  | {
      mcp: typeof STATE_VERSION;
      kind: "url_required";
      /** The push-style answers collected so far, kept for the retry. */
      answers?: Replayed[];
      /** Links approved earlier in this call, by fingerprint. */
      approved?: string[];
      /** The link being asked about now. */
      asking?: Elicitation;
    }
  | {
      mcp: typeof STATE_VERSION;
      kind: "task";
      /** The server's task (Tasks extension): polled, never started again. */
      taskId: string;
      /** The task's input requests waiting for the human, by the server's keys. */
      elicitations?: Record<string, Elicitation>;
      /** Responses the host gave already (sampling, roots), by the server's keys. */
      responses?: Record<string, unknown>;
      /** Input request keys answered already: asked again while the server catches up, skipped. */
      answered?: string[];
    };

/** The state when it is one of ours (a suspension this package made), else undefined. */
export function ownState(value: unknown): McpState | undefined {
  return typeof value === "object" &&
    value !== null &&
    (value as { mcp?: unknown }).mcp === STATE_VERSION
    ? (value as McpState)
    : undefined;
}
