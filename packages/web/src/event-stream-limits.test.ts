// Event streams hold a store subscription and a timer each: they must all be let go when the
// client leaves (even before the response starts), and one caller may hold only so many.
import { createServer, type Server } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import type { RunStore } from "@toolnexus/core";
import { sleep } from "@toolnexus/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { eventStreamResponse } from "./event-stream.js";
import { createWebHandler } from "./handler.js";
import { toNodeListener } from "./node.js";
import type { WebHandlerOptions } from "./options.js";
import {
  allowOwnSessions,
  auth,
  haltRun,
  identifyByToken,
  newStore,
  type User,
} from "./test-kit.js";

/** A store whose `watchEvents` subscriptions are counted: `live` now, `total` ever. */
function countedStore(): { store: RunStore; watchers: { live: number; total: number } } {
  const inner = newStore();
  const watchers = { live: 0, total: 0 };
  const store = Object.assign(Object.create(inner) as RunStore, {
    watchEvents(runId: string, onEvent: () => void) {
      watchers.live += 1;
      watchers.total += 1;
      const unwatch = inner.watchEvents!(runId, onEvent);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        watchers.live -= 1;
        unwatch();
      };
    },
  });
  return { store, watchers };
}

/** Polls `condition` until it holds; fails after a generous bound (never a timing assertion). */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let pass = 0; pass < 1_000; pass += 1) {
    if (condition()) return;
    await sleep(10);
  }
  throw new Error(`gave up waiting for: ${what}`);
}

let server: Server | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** The handler on node:http; `handled` counts handler calls that have returned a Response. */
async function listen(options: WebHandlerOptions<User>) {
  const handler = createWebHandler(options);
  const counts = { handled: 0 };
  server = createServer(
    toNodeListener(async (request) => {
      const response = await handler(request);
      counts.handled += 1;
      return response;
    }),
  );
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return { base: `http://127.0.0.1:${port}`, port, counts };
}

describe("event streams let go of everything", () => {
  it("clients that leave before the response starts leave no watcher, timer or slot behind", async () => {
    const { store, watchers } = countedStore();
    await haltRun(store, { runId: "run_s", sessionId: "S", requests: ["req_s"] });
    // identify answers only once the client has gone: the handler returns after the socket
    // closed, which is exactly the case that used to leak.
    let identifying = 0;
    let holding = true; // only the leavers' requests are held
    const { port, base, counts } = await listen({
      store,
      identify: async (request) => {
        if (!holding) return identifyByToken(request);
        identifying += 1;
        if (!request.signal.aborted) {
          await new Promise((resolve) =>
            request.signal.addEventListener("abort", resolve, { once: true }),
          );
        }
        return identifyByToken(request);
      },
      allow: allowOwnSessions,
      pollMs: 20,
      heartbeatMs: 20,
      maxStreamsPerCaller: 2,
    });

    const leavers = 6; // more than maxStreamsPerCaller: a leaked slot would show below
    for (let i = 0; i < leavers; i += 1) {
      const socket = connect(port, "127.0.0.1");
      socket.on("error", () => {});
      sockets.push(socket);
      socket.write(
        "GET /runs/run_s/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer token-alice\r\n\r\n",
      );
    }
    await until(() => identifying === leavers, "every request reached identify");
    for (const socket of sockets.splice(0)) socket.destroy();
    await until(() => counts.handled === leavers, "every handler returned");
    await until(() => watchers.live === 0, "no live watcher");
    expect(watchers.live).toBe(0);
    holding = false;

    // The slots came back: alice can still open her two streams, which really follow.
    const controller = new AbortController();
    const open = await Promise.all(
      [0, 1].map(() =>
        fetch(`${base}/runs/run_s/events`, {
          headers: auth("token-alice"),
          signal: controller.signal,
        }),
      ),
    );
    expect(open.map((response) => response.status)).toEqual([200, 200]);
    await until(() => watchers.live === 2, "two streams following");
    controller.abort();
    await until(() => watchers.live === 0, "the followers let go");
    expect(watchers.live).toBe(0);
  });

  it("a stream made for an already-aborted request follows nothing and is closed", async () => {
    const { store, watchers } = countedStore();
    await haltRun(store, { runId: "run_s", sessionId: "S", requests: ["req_s"] });
    let closes = 0;
    const response = eventStreamResponse({
      store,
      runId: "run_s",
      after: 0,
      heartbeatMs: 10,
      signal: AbortSignal.abort(),
      onError: () => {},
      onClose: () => {
        closes += 1;
      },
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("");
    expect(closes).toBe(1);
    expect(watchers.total).toBe(0);
  });
});

describe("maxStreamsPerCaller", () => {
  async function setUp(extra: Partial<WebHandlerOptions<User>> = {}) {
    const { store, watchers } = countedStore();
    await haltRun(store, { runId: "run_s", sessionId: "S", requests: ["req_s"] });
    await haltRun(store, { runId: "run_t", sessionId: "T", requests: ["req_t"] });
    const served = await listen({
      store,
      identify: identifyByToken,
      allow: allowOwnSessions,
      pollMs: 20,
      maxStreamsPerCaller: 2,
      ...extra,
    });
    return { store, watchers, ...served };
  }

  it("refuses a caller's stream past the limit with 429 too_many_streams, and frees a slot when a stream closes", async () => {
    const { base, watchers } = await setUp();
    const follow = (token: string, runId: string, signal?: AbortSignal) =>
      fetch(`${base}/runs/${runId}/events`, {
        headers: auth(token),
        ...(signal ? { signal } : {}),
      });
    const first = new AbortController();
    const second = new AbortController();
    const a = await follow("token-alice", "run_s", first.signal);
    const b = await follow("token-alice", "run_s", second.signal);
    expect([a.status, b.status]).toEqual([200, 200]);
    await until(() => watchers.live === 2, "two streams following");

    const refused = await follow("token-alice", "run_s");
    expect(refused.status).toBe(429);
    expect((await refused.json()).error.code).toBe("too_many_streams");
    expect(watchers.live).toBe(2); // the refused one followed nothing

    // Another caller has slots of their own.
    const bob = new AbortController();
    const other = await follow("token-bob", "run_t", bob.signal);
    expect(other.status).toBe(200);
    bob.abort();

    // One of alice's streams closes: its slot comes back (once the server has seen it go).
    await a.body!.cancel();
    first.abort();
    let again: Response | undefined;
    const third = new AbortController();
    for (let pass = 0; pass < 500 && again?.status !== 200; pass += 1) {
      if (again !== undefined) {
        expect(again.status).toBe(429);
        await again.body?.cancel();
        await sleep(10);
      }
      again = await follow("token-alice", "run_s", third.signal);
    }
    expect(again!.status).toBe(200);
    second.abort();
    third.abort();
    await until(() => watchers.live === 0, "every follower let go");
  });

  it("a stream that ends by itself frees its slot; a run the caller may not follow takes none", async () => {
    const { store, base } = await setUp({ maxStreamsPerCaller: 1 });
    await store.cancel!("run_s", { by: "alice" }); // the stream ends after the cancelled event
    for (let i = 0; i < 3; i += 1) {
      const denied = await fetch(`${base}/runs/run_t/events`, { headers: auth("token-alice") });
      expect(denied.status).toBe(404);
      await denied.body?.cancel();
      const response = await fetch(`${base}/runs/run_s/events`, { headers: auth("token-alice") });
      expect(response.status).toBe(200);
      expect(await response.text()).toContain("event: cancelled");
    }
  });

  it("is checked when the handler is made", () => {
    const store = newStore();
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() =>
        createWebHandler({ store, identify: identifyByToken, maxStreamsPerCaller: bad }),
      ).toThrow(/maxStreamsPerCaller/);
    }
  });
});
