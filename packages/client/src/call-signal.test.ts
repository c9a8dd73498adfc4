import { describe, expect, it } from "vitest";
import { attachSignal } from "./call-signal.js";

describe("attachSignal()", () => {
  it("is an own, enumerable AbortSignal that spreading keeps", () => {
    const ctx: { signal?: AbortSignal } = {};
    attachSignal(ctx);
    expect(Object.keys(ctx)).toEqual(["signal"]);
    expect(ctx.signal).toBeInstanceOf(AbortSignal);
    expect(ctx.signal).toBe(ctx.signal);
    expect({ ...ctx }.signal).toBe(ctx.signal);
    expect(ctx.signal?.aborted).toBe(false);
  });

  it("aborts a signal already read, once, with the first reason", () => {
    const ctx: { signal?: AbortSignal } = {};
    const abort = attachSignal(ctx);
    const signal = ctx.signal!;
    abort("first");
    abort("second");
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe("first");
  });

  it("gives an already-aborted signal when it is first read after the call was stopped", () => {
    const ctx: { signal?: AbortSignal } = {};
    const abort = attachSignal(ctx);
    const reason = new DOMException("timed out after 5ms", "TimeoutError");
    abort(reason);
    expect(ctx.signal?.aborted).toBe(true);
    expect(ctx.signal?.reason).toBe(reason);
  });

  it("lets a hook or a tool replace the signal", () => {
    const ctx: { signal?: AbortSignal } = {};
    attachSignal(ctx);
    const own = new AbortController().signal;
    ctx.signal = own;
    expect(ctx.signal).toBe(own);
  });
});
