// followRunEvents over real HTTP, without React: the end, a refusal, an abort, a 503 retried.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ToolnexusConfig } from "./config.js";
import { ToolnexusHttpError } from "./errors.js";
import { followRunEvents, type RunEventMessage } from "./follow.js";
import { type Fixture, startFixture } from "./testing/fixture.js";

let fixture: Fixture;
let config: ToolnexusConfig;
beforeEach(async () => {
  fixture = await startFixture();
  config = { baseUrl: fixture.base, headers: { authorization: "Bearer token-alice" } };
});
afterEach(() => fixture.close());

async function finish(runId: string) {
  const headers = { authorization: "Bearer token-alice", "content-type": "application/json" };
  const run = await (await fetch(`${fixture.base}/runs/${runId}`, { headers })).json();
  await fetch(`${fixture.base}/requests/${run.requests[0].id}/answer`, {
    method: "POST",
    headers,
    body: JSON.stringify({ ok: true, data: { env: "staging" } }),
  });
  return fixture.continueRun(runId);
}

describe("followRunEvents", () => {
  it("reads a finished run's events once, in order, and ends at the terminal one", async () => {
    const runId = await fixture.halt("S1");
    expect(await finish(runId)).toBe("shipped");
    const events: RunEventMessage[] = [];
    const outcome = await followRunEvents(config, runId, {
      signal: new AbortController().signal,
      onEvent: (event) => events.push(event),
    });
    expect(outcome).toBe("ended");
    expect(events.map((e) => e.offset)).toEqual(events.map((_, i) => i + 1));
    expect(events[0]?.type).toBe("started");
    expect(events.at(-1)).toMatchObject({ type: "done", data: { text: "shipped" } });
    // `after` starts later: only what follows.
    const later: RunEventMessage[] = [];
    await followRunEvents(config, runId, {
      after: events.length - 1,
      signal: new AbortController().signal,
      onEvent: (event) => later.push(event),
    });
    expect(later.map((e) => e.type)).toEqual(["done"]);
  });

  it("rejects a refusal at once, without retrying it", async () => {
    const runId = await fixture.halt("S1");
    const bob = { baseUrl: fixture.base, headers: { authorization: "Bearer token-bob" } };
    const refused = await followRunEvents(bob, runId, {
      signal: new AbortController().signal,
      onEvent: () => {},
    }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ToolnexusHttpError);
    expect(refused).toMatchObject({ status: 404, code: "not_found" });
    expect(fixture.streamStarts()).toHaveLength(1);
  });

  it("retries a 503 and then follows", async () => {
    const runId = await fixture.halt("S1");
    fixture.refuseStreams(2);
    const controller = new AbortController();
    const opened: boolean[] = [];
    const types: string[] = [];
    const following = followRunEvents(config, runId, {
      signal: controller.signal,
      maxRetryMs: 50,
      onConnection: (open) => opened.push(open),
      onEvent: (event) => {
        types.push(event.type);
        if (event.type === "suspended") controller.abort();
      },
    });
    expect(await following).toBe("aborted");
    expect(opened).toEqual([false, false, true]);
    expect([types[0], types.at(-1)]).toEqual(["started", "suspended"]);
    expect(fixture.streamStarts()).toEqual([0, 0, 0]);
    await fixture.streamsReach(0); // the abort closed the connection
  });
  it("a throw from onEvent reconnects without leaving the old stream open on the server", async () => {
    const runId = await fixture.halt("S1"); // waiting: its stream stays open after the events
    const controller = new AbortController();
    const types: string[] = [];
    let opens = 0;
    let third: () => void = () => {};
    const thirdOpen = new Promise<void>((resolve) => {
      third = resolve;
    });
    const following = followRunEvents(config, runId, {
      signal: controller.signal,
      maxRetryMs: 50,
      onConnection: (open) => {
        if (open && ++opens === 3) third();
      },
      onEvent: (event) => {
        types.push(event.type);
        throw new Error("a bug in the page's onEvent"); // each throw: a reconnect
      },
    });
    await thirdOpen;
    // A connection per throw, each from the offset after the last: only the third stays open.
    await fixture.streamsReach(1); // the test's timeout bounds the wait
    expect(types).toEqual(["started", "suspended"]); // each once
    expect(fixture.streamStarts()).toEqual([0, 1, 2]);
    expect(fixture.openStreams()).toBe(1);
    controller.abort();
    expect(await following).toBe("aborted");
    await fixture.streamsReach(0);
  });
});
