// Where todowrite keeps its lists: the types and the in-memory store. A file of its own so that
// options.ts can name the store type without importing the tool (and, through it, define.ts).

/** One todo, as the contract defines it. */
export interface TodoItem {
  id: string;
  text: string;
  completed: boolean;
}

/** Where todowrite keeps each session's list (the key is the session id, else the run id). */
export interface TodoStore {
  get(key: string): TodoItem[] | undefined;
  set(key: string, todos: TodoItem[]): void;
}

/**
 * An in-memory {@link TodoStore} keeping the lists of the `maxSessions` (1000) most recently
 * written sessions. Lists are copies: changing a returned list changes nothing stored.
 */
export function memoryTodoStore(options: { maxSessions?: number } = {}): TodoStore {
  const max = options.maxSessions ?? 1000;
  const lists = new Map<string, TodoItem[]>();
  return {
    get: (key) => lists.get(key)?.map((todo) => ({ ...todo })),
    set(key, todos) {
      lists.delete(key);
      lists.set(
        key,
        todos.map((todo) => ({ ...todo })),
      );
      while (lists.size > max) {
        const oldest = lists.keys().next().value;
        if (oldest === undefined) break;
        lists.delete(oldest);
      }
    },
  };
}
