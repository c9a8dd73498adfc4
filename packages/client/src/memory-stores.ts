import {
  AlreadyResumedError,
  assertCheckpoint,
  type Checkpoint,
  type ConversationStore,
  type Message,
  type SuspensionFilter,
  SuspensionNotFoundError,
  type SuspensionStore,
  type SuspensionSummary,
} from "@toolnexus/core";

interface Row {
  // Stored as JSON so a claimed checkpoint shares no objects with the run that wrote it,
  // exactly like a durable store.
  json: string;
  checkpoint: Checkpoint;
  state: "pending" | "resumed";
}

/** An in-memory {@link SuspensionStore} with list and claim semantics like the durable ones. */
export interface MemorySuspensionStore extends SuspensionStore {
  save(checkpoint: Checkpoint): void;
  get(requestId: string): Checkpoint | undefined;
  claim(requestId: string): Checkpoint;
  list(filter?: SuspensionFilter): SuspensionSummary[];
}

/**
 * Keeps halted runs in this process's memory: the client's default. Use a durable store
 * (`@toolnexus/store-sqlite`) when a run must survive a restart or resume in another process.
 */
export function memorySuspensionStore(): MemorySuspensionStore {
  const rows: Row[] = [];
  // request id -> rows that list it, newest last
  const byRequest = new Map<string, Row[]>();

  // The newest pending checkpoint that lists the request.
  const waiting = (requestId: string): Row | undefined =>
    byRequest.get(requestId)?.findLast((row) => row.state === "pending");
  const byId = new Map<string, Row>();

  return {
    save(checkpoint) {
      assertCheckpoint(checkpoint);
      const json = JSON.stringify(checkpoint);
      const known = byId.get(checkpoint.id);
      if (known !== undefined) {
        // Saving the same checkpoint again is idempotent: it cannot revive a claimed one.
        if (known.state === "pending") {
          known.json = json;
          known.checkpoint = JSON.parse(json) as Checkpoint;
        }
        return;
      }
      const row: Row = { json, checkpoint: JSON.parse(json) as Checkpoint, state: "pending" };
      rows.push(row);
      byId.set(checkpoint.id, row);
      for (const call of checkpoint.pending) {
        const list = byRequest.get(call.request.id);
        if (list === undefined) byRequest.set(call.request.id, [row]);
        else list.push(row);
      }
    },
    get(requestId) {
      const row = waiting(requestId);
      return row === undefined ? undefined : (JSON.parse(row.json) as Checkpoint);
    },
    claim(requestId) {
      const row = waiting(requestId);
      if (row === undefined) {
        if (byRequest.has(requestId)) throw new AlreadyResumedError(requestId);
        throw new SuspensionNotFoundError(requestId);
      }
      row.state = "resumed";
      return JSON.parse(row.json) as Checkpoint;
    },
    list(filter = {}) {
      const now = Date.now();
      const out: SuspensionSummary[] = [];
      for (let i = rows.length - 1; i >= 0; i--) {
        const row = rows[i]!;
        const { checkpoint } = row;
        for (const call of checkpoint.pending) {
          const expiresAt = call.deadline ?? call.request.expiresAt;
          const state =
            row.state === "pending" && expiresAt !== undefined && Date.parse(expiresAt) <= now
              ? "expired"
              : row.state;
          if (filter.state !== undefined && filter.state !== state) continue;
          if (filter.sessionId !== undefined && filter.sessionId !== checkpoint.sessionId) continue;
          if (filter.kind !== undefined && filter.kind !== call.request.kind) continue;
          const summary: SuspensionSummary = {
            request: call.request,
            checkpointId: checkpoint.id,
            runId: checkpoint.runId,
            createdAt: checkpoint.createdAt,
            state,
          };
          if (checkpoint.sessionId !== undefined) summary.sessionId = checkpoint.sessionId;
          if (checkpoint.agent !== undefined) summary.agent = checkpoint.agent;
          if (expiresAt !== undefined) summary.expiresAt = expiresAt;
          out.push(summary);
        }
      }
      return out;
    },
  };
}

/** Keeps `ask` transcripts in this process's memory: the client's default. */
export function memoryConversationStore(): ConversationStore {
  const sessions = new Map<string, string>();
  return {
    load(sessionId) {
      const json = sessions.get(sessionId);
      return json === undefined ? undefined : (JSON.parse(json) as Message[]);
    },
    save(sessionId, messages) {
      sessions.set(sessionId, JSON.stringify(messages));
    },
  };
}
