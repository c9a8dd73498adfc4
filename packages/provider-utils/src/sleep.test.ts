import { afterEach, describe, expect, it, vi } from "vitest";
import { MAX_TIMER_MS, sleep } from "./abort.js";
import { MAX_RETRY_DELAY_MS, retryOptions } from "./retry.js";

const DAY = 24 * 3600 * 1000;

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("sleep past the timer limit", () => {
  it("never hands setTimeout a delay it would cut to 1 ms", async () => {
    const spy = vi.spyOn(globalThis, "setTimeout");
    const controller = new AbortController();
    const waiting = sleep(30 * DAY, controller.signal);
    const delays = spy.mock.calls.map((call) => call[1]);
    expect(delays).toHaveLength(1);
    expect(delays[0]).toBe(MAX_TIMER_MS);
    controller.abort(new Error("stop"));
    await expect(waiting).rejects.toThrow("stop");
  });

  it("waits the whole 30 days, in steps", async () => {
    vi.useFakeTimers();
    let done = false;
    const waiting = sleep(30 * DAY).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(1000);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(30 * DAY - MAX_TIMER_MS - 1000 - 1);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await waiting;
    expect(done).toBe(true);
  });

  it("resolves at once for NaN and a wait <= 0, and Infinity waits for the abort", async () => {
    await sleep(Number.NaN);
    await sleep(0);
    await sleep(-5);
    vi.useFakeTimers();
    const controller = new AbortController();
    let settled = false;
    const waiting = sleep(Number.POSITIVE_INFINITY, controller.signal).finally(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(10 * MAX_TIMER_MS);
    expect(settled).toBe(false);
    controller.abort(new Error("enough"));
    await expect(waiting).rejects.toThrow("enough");
  });
});

describe("maxRetryDelayMs", () => {
  it("is refused past 2^31 - 1 ms with a TypeError saying the limit", () => {
    expect(MAX_RETRY_DELAY_MS).toBe(2 ** 31 - 1);
    expect(retryOptions("openai", { maxRetryDelayMs: MAX_RETRY_DELAY_MS }).maxRetryDelayMs).toBe(
      MAX_RETRY_DELAY_MS,
    );
    expect(() => retryOptions("openai", { maxRetryDelayMs: 40 * DAY })).toThrow(TypeError);
    expect(() => retryOptions("openai", { maxRetryDelayMs: MAX_RETRY_DELAY_MS + 1 })).toThrow(
      /openai: maxRetryDelayMs must be a number from 0 to 2147483647/,
    );
  });
});
