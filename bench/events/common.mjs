// What the events bench's processes share: how to open a store from a plain spec (it crosses
// into child processes), the scripted model and tool of every durable run, a store with its
// event members hidden, the clock and the percentiles.
import { toolCall } from "@toolnexus/core";

/** Milliseconds on the wall clock with sub-ms resolution, comparable across this machine's processes. */
export const now = () => performance.timeOrigin + performance.now();

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Opens the store a spec names: `{ kind: "postgres", url, schema }` or `{ kind: "sqlite", path }`. */
export async function openStore(spec, extra = {}) {
  if (spec.kind === "postgres") {
    const { postgresStore } = await import("@toolnexus/store-postgres");
    return postgresStore(
      { connectionString: spec.url },
      { schema: spec.schema, poolSize: extra.poolSize ?? 10 },
    );
  }
  const { sqliteStore } = await import("@toolnexus/store-sqlite");
  return sqliteStore({ path: spec.path });
}

const EVENT_MEMBERS = new Set(["appendEvents", "readEvents", "watchEvents"]);

/**
 * The same store without `appendEvents`, `readEvents` and `watchEvents`: the client then appends
 * none of the loop's events (the store still writes its own, e.g. `started` and `done`, in the
 * writes it makes anyway). Methods stay bound to the real store.
 */
export function hideEvents(store) {
  const view = {};
  for (let o = store; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const key of Object.getOwnPropertyNames(o)) {
      if (key === "constructor" || EVENT_MEMBERS.has(key) || key in view) continue;
      const value = store[key];
      view[key] = typeof value === "function" ? value.bind(store) : value;
    }
  }
  return view;
}

/**
 * The store (or a view of it) with every method call counted by name in `counts`: how many
 * store calls one run makes.
 */
export function countCalls(store, counts) {
  const view = {};
  for (let o = store; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const key of Object.getOwnPropertyNames(o)) {
      if (key === "constructor" || key in view) continue;
      const value = store[key];
      view[key] =
        typeof value === "function"
          ? (...args) => {
              counts[key] = (counts[key] ?? 0) + 1;
              return value.apply(store, args);
            }
          : value;
    }
  }
  return view;
}

let responses = 0;
const respond = (text, calls) => ({
  id: `r${++responses}`,
  text,
  toolCalls: calls,
  finishReason: calls.length > 0 ? "tool_calls" : "stop",
});

/**
 * A Model that asks for `steps` tool calls, one per turn, then answers. What it answers depends
 * only on the transcript, so any worker can take a run over. `beforeFirst` (optional) is awaited
 * before a run's first turn: the bench parks every run there until its followers are connected.
 */
export function stepModel(steps, beforeFirst) {
  return {
    id: "scripted-steps",
    async generate(request) {
      let k = 0;
      for (const message of request.messages) if (message.role === "tool") k++;
      if (k === 0 && beforeFirst) await beforeFirst();
      if (k < steps) return respond("", [toolCall(`c${k}`, "work", JSON.stringify({ k }))]);
      return respond(`finished after ${steps} steps`, []);
    },
  };
}

/** The tool of every run: waits `toolMs` (an API call's stand-in), then says when it returned. */
export function workTool(toolMs) {
  return {
    name: "work",
    description: "Does one step of work",
    inputSchema: { type: "object", properties: { k: { type: "number" } } },
    source: "custom",
    execute: async (args) => {
      if (toolMs > 0) await sleep(toolMs);
      return { output: `step ${args.k} stamp:${now().toFixed(3)}`, isError: false };
    },
  };
}

/** The worker-side time a `tool_result` event's output carries, or undefined. */
export function stampOf(event) {
  const output = event.data?.output;
  if (typeof output !== "string") return undefined;
  const match = /stamp:([0-9.]+)/.exec(output);
  return match ? Number(match[1]) : undefined;
}

// The same arithmetic as the SDK bench (tested in test/stats.test.mjs).
export { median, quantile } from "../src/stats.mjs";

/** Resident set and heap, after a full collection when `--expose-gc` is on. */
export async function memory() {
  if (typeof globalThis.gc === "function") {
    for (let i = 0; i < 3; i++) {
      globalThis.gc();
      await sleep(20);
    }
  }
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed };
}
