import { type ConversationStore, guardStoreIds, type Message } from "@toolnexus/core";

/** Keeps `ask` transcripts in this process's memory: the client's default. */
export function memoryConversationStore(): ConversationStore {
  const sessions = new Map<string, string>();
  return guardStoreIds<ConversationStore>(
    {
      load(sessionId) {
        const json = sessions.get(sessionId);
        return json === undefined ? undefined : (JSON.parse(json) as Message[]);
      },
      save(sessionId, messages) {
        // Stored as JSON text, so later changes to `messages` do not reach the store.
        sessions.set(sessionId, JSON.stringify(messages));
      },
    },
    "sync",
  );
}
