// Which run a chat shows now: `useChat` resumes by chat id only (`GET {api}/{chatId}/stream`),
// so the handler keeps the chat's latest run. Every process serving the same chats must see the
// same index: the default lives in memory, enough for one server process.

type Awaitable<T> = T | Promise<T>;

/** Where the handler keeps each chat's latest run. */
export interface ChatRuns {
  get(chatId: string): Awaitable<string | undefined>;
  set(chatId: string, runId: string): Awaitable<void>;
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
    get: (chatId) => runs.get(chatId),
    set(chatId, runId) {
      runs.delete(chatId); // re-inserted: the most recent is the last to be forgotten
      runs.set(chatId, runId);
      if (runs.size > maxChats) runs.delete(runs.keys().next().value!);
    },
  };
}
