import type { Message } from "@toolnexus/core";
import type { Db } from "./driver.js";
import { SqliteStoreError } from "./errors.js";

/** The conversation half of the store, over an open database. */
export interface ConversationOps {
  load(sessionId: string): Message[] | undefined;
  save(sessionId: string, messages: readonly Message[]): void;
  deleteConversation(sessionId: string): boolean;
}

/** Prepares the statements once and returns the conversation operations. */
export function conversationOps(db: Db, path: string): ConversationOps {
  const select = db
    .prepare<[string], string>("SELECT json FROM conversations WHERE session_id = ?")
    .pluck();
  const upsert = db.prepare<[string, string, number]>(
    `INSERT INTO conversations (session_id, json, updated_ms) VALUES (?, ?, ?)
     ON CONFLICT (session_id) DO UPDATE SET json = excluded.json, updated_ms = excluded.updated_ms`,
  );
  const remove = db.prepare<[string]>("DELETE FROM conversations WHERE session_id = ?");

  const corrupt = (sessionId: string, problem: string, cause?: unknown): never => {
    throw new SqliteStoreError(
      "conversation_corrupt",
      path,
      `the stored conversation for session "${sessionId}" cannot be read: ${problem}`,
      { cause },
    );
  };

  return {
    load(sessionId) {
      const json = select.get(sessionId);
      if (json === undefined) return undefined;
      let value: unknown;
      try {
        value = JSON.parse(json);
      } catch (cause) {
        return corrupt(sessionId, `its JSON is corrupt (${(cause as Error).message})`, cause);
      }
      if (!Array.isArray(value)) return corrupt(sessionId, "it is not a list of messages");
      return value as Message[];
    },
    save(sessionId, messages) {
      upsert.run(sessionId, JSON.stringify(messages), Date.now());
    },
    deleteConversation(sessionId) {
      return remove.run(sessionId).changes > 0;
    },
  };
}
