// One caller holds at most maxStreamsPerCaller streams open; one more is refused with 429
// before anything is started, and another caller's slots are their own.
import { memoryRunStore } from "@toolnexus/client";
import { describe, expect, it, onTestFinished } from "vitest";
import { serve, testHandlerOptions } from "./test-kit.js";

describe("maxStreamsPerCaller", () => {
  it("refuses a caller's stream past the cap with 429 too_many_streams", async () => {
    const store = memoryRunStore();
    let starts = 0;
    const url = await serve({
      ...testHandlerOptions(store, undefined),
      maxStreamsPerCaller: 1,
      waitForRunMs: 600_000,
      // Never stored: each stream waits for its run, holding its slot until the client leaves.
      start: () => ({ runId: `never-stored-${++starts}` }),
    });
    const leave = new AbortController();
    onTestFinished(() => leave.abort());
    const post = (token: string, body: unknown) =>
      fetch(url, {
        method: "POST",
        signal: leave.signal,
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });
    const input = (runId: string) => ({
      threadId: "T1",
      runId,
      state: {},
      messages: [{ id: "m1", role: "user", content: "go" }],
      tools: [],
      context: [],
      forwardedProps: {},
    });
    expect((await post("token-alice", { nonsense: true })).status).toBe(400); // holds no slot
    expect((await post("token-alice", input("R1"))).status).toBe(200);
    const refused = await post("token-alice", input("R2"));
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
      "too_many_streams",
    );
    expect(starts).toBe(1);
    expect((await post("token-bob", input("R3"))).status).toBe(200);
    expect(starts).toBe(2);
  });
});
