// Which run a chat shows now: `useChat` resumes by chat id only (`GET {api}/{chatId}/stream`),
// so the handler keeps the chat's latest run. The chat id is the browser's to choose, so the
// index is kept per caller: someone posting under another person's chat id fills their own
// entry, never that person's. Every process serving the same chats must see the same index:
// the default lives in memory, enough for one server process.

type Awaitable<T> = T | Promise<T>;

/**
 * Where the handler keeps each chat's latest run, under a key that is the caller's id and the
 * chat's id together (see {@link chatRunKey}); keep the key as given.
 */
export interface ChatRuns {
  get(key: string): Awaitable<string | undefined>;
  set(key: string, runId: string): Awaitable<void>;
}

/** The key a chat's latest run is kept under: one caller's chat, never another's. */
export function chatRunKey(callerId: string, chatId: string): string {
  return JSON.stringify([callerId, chatId]);
}

/** Default most chats {@link memoryChatRuns} remembers; the oldest is forgotten first. */
export const DEFAULT_MAX_CHATS = 10_000;

/** A {@link ChatRuns} in this process's memory, remembering at most `maxChats` chats. */
export function memoryChatRuns(maxChats: number = DEFAULT_MAX_CHATS): ChatRuns {
  if (!Number.isSafeInteger(maxChats) || maxChats < 1) {
    throw new TypeError("memoryChatRuns: maxChats must be a whole number, 1 or more");
  }
  const runs = new Map<string, string>();
  return {
    get: (key) => runs.get(key),
    set(key, runId) {
      runs.delete(key); // re-inserted: the most recent is the last to be forgotten
      runs.set(key, runId);
      if (runs.size > maxChats) runs.delete(runs.keys().next().value!);
    },
  };
}
