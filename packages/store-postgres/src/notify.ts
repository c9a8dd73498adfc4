import type pg from "pg";
import type { Db } from "./connection.js";

/** The LISTEN side of the store: one dedicated connection per store, shared by its subscribers. */
export interface Listener {
  /** Calls `onReady` on every notification of the channel; returns an unsubscribe function. */
  subscribe(onReady: () => void): () => void;
  /** Resolves once a starting listener has made its first attempt to listen (or at once). */
  settled(): Promise<void>;
  /** Stops listening and gives the connection up. */
  close(): Promise<void>;
}

const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 5000;

/**
 * Listens on `channel` over a connection of its own, taken from the pool and kept: when it
 * breaks (the server restarted, the network dropped), it reconnects with backoff, and tells every
 * subscriber once it listens again, since notifications sent meanwhile were lost.
 */
export function listener(
  db: Db,
  channel: string,
  onError: ((error: unknown) => void) | undefined,
): Listener {
  const subscribers = new Set<() => void>();
  /** The connection listening now, and how to let it go. */
  let client: { connection: pg.PoolClient; drop: (error?: unknown) => void } | undefined;
  let attempt: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let retryMs = FIRST_RETRY_MS;
  let lost = false;
  let running = false;
  /** Bumped by every attempt and by stop(): an attempt that is no longer the latest gives up. */
  let generation = 0;

  const tell = () => {
    for (const onReady of [...subscribers]) {
      try {
        onReady();
      } catch {
        // A subscriber's failure is its own.
      }
    }
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
      };
      next.on("notification", onNotification);
      next.on("error", drop);
      next.on("end", () => drop());
      try {
        await next.query(`LISTEN "${channel}"`);
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
    })();
  };

  const stop = () => {
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
      if (!running) {
        running = true;
        lost = false;
        connect();
      }
      let done = false;
      return () => {
        if (done) return;
        done = true;
        subscribers.delete(entry);
        if (subscribers.size === 0) stop();
      };
    },
    async settled() {
      if (running && client === undefined && attempt !== undefined) await attempt;
    },
    async close() {
      subscribers.clear();
      stop();
      await attempt;
    },
  };
}
