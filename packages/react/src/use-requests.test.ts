// @vitest-environment jsdom
// useRequests' polling loop against a fake handler whose every list call waits until the test
// answers it, with fake timers: the calls are counted as the server sees them, and time moves
// only when the test moves it.

import { act, cleanup, render } from "@testing-library/react";
import { createElement as h, type ReactNode } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ToolnexusProvider } from "./config.js";
import { type UseRequestsOptions, useRequests } from "./use-requests.js";

/** A `GET /requests` that counts its calls and answers each (the same list) when told to. */
function fakeServer() {
  const waiting: (() => void)[] = [];
  let calls = 0;
  const fetch = ((_input: RequestInfo | URL, init?: RequestInit) => {
    calls += 1;
    return new Promise<Response>((resolve, reject) => {
      init?.signal?.addEventListener("abort", () =>
        reject(new DOMException("aborted", "AbortError")),
      );
      waiting.push(() =>
        resolve(
          new Response(JSON.stringify({ requests: [], more: false }), {
            status: 200,
            headers: { "content-type": "application/json" },
          }),
        ),
      );
    });
  }) as typeof globalThis.fetch;
  return {
    fetch,
    /** List calls made so far. */
    calls: () => calls,
    /** List calls not answered yet. */
    inFlight: () => waiting.length,
    /** Answers every call in flight, and lets the hook take the answers in. */
    answer: () =>
      act(async () => {
        for (const resolve of waiting.splice(0)) resolve();
        await vi.advanceTimersByTimeAsync(0);
      }),
  };
}

const advance = (ms: number) =>
  act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });

const focus = () =>
  act(() => {
    document.dispatchEvent(new Event("visibilitychange"));
  });

function List(props: { options: UseRequestsOptions }): ReactNode {
  const { requests } = useRequests({}, props.options);
  return h("p", null, String(requests.length));
}

function mount(server: ReturnType<typeof fakeServer>, options: UseRequestsOptions) {
  return render(
    h(ToolnexusProvider, { baseUrl: "http://x/api", fetch: server.fetch }, h(List, { options })),
  );
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe("useRequests polling", () => {
  it("a tab focus during a fetch starts no second loop: one call per poll, none after unmount", async () => {
    const server = fakeServer();
    const view = mount(server, { pollMs: 1000, maxPollMs: 1000 });
    expect(server.calls()).toBe(1);
    for (let i = 0; i < 5; i++) await focus(); // each while the first fetch is in flight
    expect(server.calls()).toBe(1); // that fetch is the one a focus asks for
    await server.answer();
    for (let poll = 2; poll <= 6; poll++) {
      await advance(1000);
      expect(server.calls()).toBe(poll); // one loop: one call each pollMs
      await server.answer();
    }
    await advance(1000); // a fetch in flight at unmount
    expect(server.inFlight()).toBe(1);
    view.unmount();
    await server.answer();
    await advance(10_000);
    expect(server.calls()).toBe(7);
  });

  it("a focus between polls fetches at once, in place of the waiting poll", async () => {
    const server = fakeServer();
    mount(server, { pollMs: 1000, maxPollMs: 1000 });
    await server.answer();
    await advance(500);
    await focus();
    expect(server.calls()).toBe(2);
    await server.answer();
    await advance(999);
    expect(server.calls()).toBe(2); // the poll that was waiting went: the next is 1 s after
    await advance(1);
    expect(server.calls()).toBe(3);
  });

  it("a focus during a fetch brings the next poll back to pollMs from the backoff", async () => {
    const server = fakeServer();
    mount(server, { pollMs: 1000, maxPollMs: 8000 });
    await server.answer(); // changed (first list): next in 1 s
    await advance(1000);
    await server.answer(); // unchanged: next in 2 s
    await advance(2000);
    expect(server.calls()).toBe(3);
    await focus(); // during the third fetch
    await server.answer(); // unchanged, which alone would wait 4 s
    await advance(1000);
    expect(server.calls()).toBe(4);
  });
});
