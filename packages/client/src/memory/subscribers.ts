import type { MemoryRunStore } from "./store.js";

/** Who wants to hear that a run became claimable (a worker's wake-up, instead of polling). */
export function subscribers(): { notify: () => void } & Pick<MemoryRunStore, "subscribe"> {
  const listeners = new Set<() => void>();
  return {
    notify() {
      if (listeners.size === 0) return;
      // Later, never inside the store call: a listener typically calls claim() right away.
      queueMicrotask(() => {
        for (const listener of [...listeners]) {
          try {
            listener();
          } catch {
            // A failing listener must not break the store nor crash the process from a microtask.
          }
        }
      });
    },

    subscribe(onReady) {
      // A wrapper per subscription, so subscribing the same function twice is two subscriptions.
      const listener = () => onReady();
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}
