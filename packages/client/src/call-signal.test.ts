import { describe, expect, it } from "vitest";
import { CallContext, stopCall } from "./call-signal.js";

describe("CallContext", () => {
  it("has the call's ids and an own, enumerable AbortSignal that spreading keeps", () => {
    const ctx = new CallContext("msg_1", "c1", "run_1", 1);
    expect(Object.keys(ctx)).toEqual(["messageId", "callId", "runId", "attempt", "signal"]);
    expect(ctx.signal).toBeInstanceOf(AbortSignal);
    expect(ctx.signal).toBe(ctx.signal);
    expect({ ...ctx }).toEqual({
      messageId: "msg_1",
      callId: "c1",
      runId: "run_1",
      attempt: 1,
      signal: ctx.signal,
    });
    expect(ctx.signal?.aborted).toBe(false);
  });

  it("aborts a signal already read, once, with the first reason", () => {
    const ctx = new CallContext("msg_1", "c1", "run_1", 1);
    const signal = ctx.signal!;
    stopCall(ctx, "first");
    stopCall(ctx, "second");
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe("first");
  });

  it("gives an already-aborted signal when it is first read after the call was stopped", () => {
    const ctx = new CallContext("msg_1", "c1", "run_1", 1);
    const reason = new DOMException("timed out after 5ms", "TimeoutError");
    stopCall(ctx, reason);
    expect(ctx.signal?.aborted).toBe(true);
    expect(ctx.signal?.reason).toBe(reason);
  });

  it("keeps each context's signal its own", () => {
    const a = new CallContext("msg_1", "c1", "run_1", 1);
    const b = new CallContext("msg_1", "c2", "run_1", 1);
    stopCall(a, "stop");
    expect(a.signal?.aborted).toBe(true);
    expect(b.signal?.aborted).toBe(false);
    expect(a.signal).not.toBe(b.signal);
  });

  it("lets a hook or a tool replace the signal", () => {
    const ctx = new CallContext("msg_1", "c1", "run_1", 1);
    const own = new AbortController().signal;
    ctx.signal = own;
    expect(ctx.signal).toBe(own);
  });
});
