import type { ConversationStore, Message } from "@toolnexus/core";
import { checked } from "./checks.js";

/** Keeps `ask` transcripts in this process's memory: the client's default. */
export function memoryConversationStore(): ConversationStore {
  const sessions = new Map<string, string>();
  return {
    load: checked("load", (sessionId: string): Message[] | undefined => {
      const json = sessions.get(sessionId);
      return json === undefined ? undefined : (JSON.parse(json) as Message[]);
    }),
    save: checked("save", (sessionId: string, messages: readonly Message[]): void => {
      // Stored as JSON text, so later changes to `messages` do not reach the store.
      sessions.set(sessionId, JSON.stringify(messages));
    }),
  };
}
