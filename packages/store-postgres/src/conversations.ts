import type { Message } from "@toolnexus/core";
import { key } from "./connection.js";
import type { Context } from "./context.js";
import { PostgresStoreError } from "./errors.js";
import { NOW_MS, plain, short } from "./rows.js";

/** The conversation half of the store. */
export interface ConversationOps {
  load(sessionId: string): Promise<Message[] | undefined>;
  save(sessionId: string, messages: readonly Message[]): Promise<void>;
  deleteConversation(sessionId: string): Promise<boolean>;
}

/** Builds the conversation operations over the store's context. */
export function conversationOps(ctx: Context): ConversationOps {
  const { db, s, name } = ctx;
  const corrupt = (sessionId: string, problem: string, cause?: unknown): never => {
    throw new PostgresStoreError(
      "conversation_corrupt",
      db.where,
      `the stored conversation for session "${short(sessionId)}" cannot be read: ${problem}`,
      { cause },
    );
  };

  return {
    async load(sessionId) {
      const sessionKey = key(String(sessionId));
      const { rows } = await db.retrying(async () => {
        await ctx.ready();
        return db.run<{ json: string }>({
          name: name("conversation_load"),
          text: `SELECT json FROM ${s}.conversations WHERE session_key = $1`,
          values: [sessionKey],
        });
      });
      const json = rows[0]?.json;
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

    async save(sessionId, messages) {
      if (!Array.isArray(messages)) {
        throw new TypeError("save(): messages must be a list of messages");
      }
      // Copied before the first await: the loop keeps appending to the transcript it passes.
      const json = JSON.stringify(messages);
      const sessionKey = key(String(sessionId));
      // The same transcript saved twice is saved once: safe to try again.
      await db.retrying(async () => {
        await ctx.ready();
        await db.run({
          name: name("conversation_save"),
          text: `INSERT INTO ${s}.conversations (session_key, session_id, json, updated_ms)
                 VALUES ($1, $2, $3, ${NOW_MS})
                 ON CONFLICT (session_key) DO UPDATE SET json = excluded.json,
                   updated_ms = excluded.updated_ms`,
          values: [sessionKey, plain(String(sessionId)), json],
        });
      });
    },

    async deleteConversation(sessionId) {
      const sessionKey = key(String(sessionId));
      // Deleting twice leaves the same nothing (a retried delete may then report false).
      const deleted = await db.retrying(async () => {
        await ctx.ready();
        return db.run({
          name: name("conversation_delete"),
          text: `DELETE FROM ${s}.conversations WHERE session_key = $1`,
          values: [sessionKey],
        });
      });
      return (deleted.rowCount ?? 0) > 0;
    },
  };
}
