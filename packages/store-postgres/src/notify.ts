import type pg from "pg";
import type { Db } from "./connection.js";

/**
 * The LISTEN side of the store: one dedicated connection per store, shared by its subscribers
 * (workers told a run may be claimable) and its watchers (followers of one run's events).
 */
export interface Listener {
  /** Calls `onReady` on every notification of the channel; returns an unsubscribe function. */
  subscribe(onReady: () => void): () => void;
  /**
   * Calls `onEvent` on every notification of the events channel whose payload is `runKey`
   * (the hex digest of the run's id), after the connection listens again following a break, and
   * whenever the safety-net poll finds the run's last offset moved. Returns an unsubscribe.
   */
  watch(runKey: string, onEvent: () => void): () => void;
  /** Resolves once a starting listener has made its first attempt to listen (or at once). */
  settled(): Promise<void>;
  /** Stops listening and gives the connection up. */
  close(): Promise<void>;
}

const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 5000;

/** Options of {@link listener}. */
export interface ListenerOptions {
  /** Channel of "a run may be claimable". */
  channel: string;
  /** Channel of run events; the payload is the run's hex key. */
  eventsChannel: string;
  onError: ((error: unknown) => void) | undefined;
  /** Reads the last offsets of watched runs: the slow poll that catches a lost notification. */
  lastOffsets: (keys: readonly string[]) => Promise<Map<string, number>>;
  /** How often the safety-net poll runs while anything is watched, in ms. */
  pollMs: number;
}

/**
 * Listens on `channel` over a connection of its own, taken from the pool and kept: when it
 * breaks (the server restarted, the network dropped), it reconnects with backoff, and tells every
 * subscriber once it listens again, since notifications sent meanwhile were lost.
 */
export function listener(db: Db, options: ListenerOptions): Listener {
  const { channel, eventsChannel, onError } = options;
  const subscribers = new Set<() => void>();
  const watchers = new Map<string, Set<() => void>>();
  /** The last offset the poll saw of each watched run. */
  const seen = new Map<string, number>();
  let poller: NodeJS.Timeout | undefined;
  /** The connection listening now, and how to let it go. */
  let client: { connection: pg.PoolClient; drop: (error?: unknown) => void } | undefined;
  let attempt: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let retryMs = FIRST_RETRY_MS;
  let lost = false;
  let running = false;
  /** Bumped by every attempt and by stop(): an attempt that is no longer the latest gives up. */
  let generation = 0;

  const call = (fns: Iterable<() => void>) => {
    for (const fn of [...fns]) {
      try {
        fn();
      } catch {
        // A subscriber's failure is its own.
      }
    }
  };
  const tell = () => call(subscribers);
  const wake = (runKey: string) => {
    const set = watchers.get(runKey);
    if (set !== undefined) call(set);
  };
  const wakeAll = () => {
    for (const runKey of [...watchers.keys()]) wake(runKey);
  };
  const active = () => subscribers.size > 0 || watchers.size > 0;
  const start = () => {
    if (!running) {
      running = true;
      lost = false;
      connect();
    }
  };

  // The slow poll: a notification lost on the way (the listening connection broke between a
  // commit and its LISTEN again) still reaches the follower within a poll.
  const poll = async () => {
    poller = undefined;
    if (watchers.size === 0) return;
    try {
      const offsets = await options.lastOffsets([...watchers.keys()]);
      for (const [runKey, last] of offsets) {
        if (seen.get(runKey) !== last) {
          seen.set(runKey, last);
          wake(runKey);
        }
      }
    } catch (error) {
      // A store closing meanwhile is no problem to report.
      if (running) report(error);
    }
    schedulePoll();
  };
  const schedulePoll = () => {
    if (poller !== undefined || watchers.size === 0) return;
    poller = setTimeout(() => void poll(), options.pollMs);
    poller.unref?.();
  };
  const report = (error: unknown) => {
    try {
      onError?.(db.translate(error));
    } catch {
      // Nothing to do about a failing error handler.
    }
  };

  const schedule = () => {
    if (!running || timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      connect();
    }, retryMs);
    timer.unref?.();
    retryMs = Math.min(retryMs * 2, LAST_RETRY_MS);
  };

  const connect = () => {
    const mine = ++generation;
    const current = () => running && mine === generation;
    attempt = (async () => {
      let next: pg.PoolClient;
      try {
        next = await db.pool.connect();
      } catch (error) {
        if (!current()) return;
        lost = true;
        report(error);
        schedule();
        return;
      }
      if (!current()) {
        next.release(true);
        return;
      }
      let dropped = false;
      const drop = (error?: unknown) => {
        if (dropped) return;
        dropped = true;
        next.off("notification", onNotification);
        if (client?.connection === next) client = undefined;
        next.release(error instanceof Error ? error : true);
        if (!current()) return;
        lost = true;
        report(error ?? new Error("Connection terminated unexpectedly"));
        schedule();
      };
      const onNotification = (message: pg.Notification) => {
        if (message.channel === channel) tell();
        else if (message.channel === eventsChannel && message.payload) wake(message.payload);
      };
      next.on("notification", onNotification);
      next.on("error", drop);
      next.on("end", () => drop());
      try {
        await next.query(`LISTEN "${channel}"; LISTEN "${eventsChannel}"`);
      } catch (error) {
        drop(error);
        return;
      }
      if (dropped) return;
      if (!current()) {
        drop();
        return;
      }
      client = { connection: next, drop };
      retryMs = FIRST_RETRY_MS;
      if (lost) {
        // Whatever became claimable while nobody listened.
        lost = false;
        tell();
      }
      // Events recorded before this connection listened were told to nobody: followers read again.
      wakeAll();
    })();
  };

  const stop = () => {
    if (poller !== undefined) clearTimeout(poller);
    poller = undefined;
    running = false;
    generation++;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    // Closed rather than returned: a pooled connection must not keep listening.
    client?.drop();
    client = undefined;
  };

  return {
    subscribe(onReady) {
      if (typeof onReady !== "function") {
        throw new TypeError("subscribe(): onReady must be a function");
      }
      const entry = () => onReady();
      subscribers.add(entry);
      start();
      let done = false;
      return () => {
        if (done) return;
        done = true;
        subscribers.delete(entry);
        if (!active()) stop();
      };
    },
    watch(runKey, onEvent) {
      const entry = () => onEvent();
      let set = watchers.get(runKey);
      if (set === undefined) {
        set = new Set();
        watchers.set(runKey, set);
      }
      set.add(entry);
      start();
      schedulePoll();
      let done = false;
      return () => {
        if (done) return;
        done = true;
        const mine = watchers.get(runKey);
        mine?.delete(entry);
        if (mine?.size === 0) {
          watchers.delete(runKey);
          seen.delete(runKey);
        }
        if (!active()) stop();
      };
    },
    async settled() {
      if (running && client === undefined && attempt !== undefined) await attempt;
    },
    async close() {
      subscribers.clear();
      watchers.clear();
      stop();
      await attempt;
    },
  };
}
