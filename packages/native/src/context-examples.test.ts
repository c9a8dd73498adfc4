// The ToolContext examples the Elixir, C# and Clojure ports document, ported to our packages
// with the same expected values.
import { type Answer, isPending, pending, pendingOf, type ToolContext } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { nativeTool } from "./native-tool.js";

describe("1. reading call identity", () => {
  const whoami = nativeTool({
    name: "whoami",
    description: "Report the call's identity",
    ctx: true,
    run: (_args, ctx) => `${ctx.agent ?? "anonymous"}@${ctx.sessionId ?? "no-session"}`,
  });

  it("reads as anonymous with a bare context and with no context at all", async () => {
    expect((await whoami.execute({}, {})).output).toBe("anonymous@no-session");
    expect((await whoami.execute({})).output).toBe("anonymous@no-session");
  });

  it("reads the identity the loop fills in", async () => {
    const result = await whoami.execute(
      {},
      { agent: "researcher", sessionId: "s-42", callId: "c-1" },
    );
    expect(result).toEqual({ output: "researcher@s-42", isError: false });
  });
});

describe("2. honouring the caller's budget and cancellation", () => {
  const fetchish = nativeTool({
    name: "fetchish",
    description: "Pretend to fetch, bounded by the caller's timeout",
    input: z.object({ url: z.string() }),
    ctx: true,
    run: ({ url }, ctx) => {
      if (ctx.signal?.aborted) return { output: "cancelled", isError: true };
      // undefined means unset: fall back to our own default, never treat it as zero.
      const budget = ctx.timeout ?? 30_000;
      if (budget < 100) return { output: `budget ${budget}ms is too small to try`, isError: true };
      return `fetched ${url} within ${budget}ms`;
    },
  });

  it("uses a generous budget", async () => {
    expect(await fetchish.execute({ url: "/a" }, { timeout: 5000 })).toEqual({
      output: "fetched /a within 5000ms",
      isError: false,
    });
  });

  it("refuses a stingy budget", async () => {
    expect(await fetchish.execute({ url: "/a" }, { timeout: 10 })).toEqual({
      output: "budget 10ms is too small to try",
      isError: true,
    });
  });

  it("falls back to its own default when no budget is set", async () => {
    expect((await fetchish.execute({ url: "/a" }, {})).output).toContain("30000ms");
    expect((await fetchish.execute({ url: "/a" })).output).toContain("30000ms");
  });

  it("reads an already-aborted signal as cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await fetchish.execute({ url: "/a" }, { signal: controller.signal })).toEqual({
      output: "cancelled",
      isError: true,
    });
  });
});

describe("3. cancellation between steps", () => {
  const crunch = nativeTool({
    name: "crunch",
    description: "Do a few steps of work",
    input: z.object({ steps: z.number().int().min(0) }),
    ctx: true,
    run: ({ steps }, ctx) => {
      let done = 0;
      for (let i = 0; i < steps; i++) {
        if (ctx.signal?.aborted)
          return { output: `cancelled after ${done} step(s)`, isError: true };
        done++;
      }
      return `completed ${done} step(s)`;
    },
  });

  it("completes with no context", async () => {
    expect(await crunch.execute({ steps: 3 })).toEqual({
      output: "completed 3 step(s)",
      isError: false,
    });
  });

  it("stops before the first step when cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await crunch.execute({ steps: 3 }, { signal: controller.signal })).toEqual({
      output: "cancelled after 0 step(s)",
      isError: true,
    });
  });

  it("a live signal reads as not aborted", async () => {
    const live = new AbortController();
    expect(live.signal.aborted).toBe(false);
    expect((await crunch.execute({ steps: 3 }, { signal: live.signal })).output).toBe(
      "completed 3 step(s)",
    );
  });
});

describe("4. answer: the two halves of a suspension", () => {
  const deploy = nativeTool({
    name: "deploy",
    description: "Deploy, asking which environment first",
    ctx: true,
    run: (_args, ctx) => {
      const answer = ctx.answer;
      // First pass: park the run and ask.
      if (answer === undefined) return pending({ kind: "input", prompt: "Which environment?" });
      // Second pass: the host resolved the question and handed the answer back.
      if (!answer.ok) return { output: `declined: ${answer.reason ?? "no reason"}`, isError: true };
      return `deployed to ${String(answer.data?.env ?? "unknown")}`;
    },
  });

  it("suspends on the first pass", async () => {
    const first = await deploy.execute({}, {});
    expect(isPending(first)).toBe(true);
    expect(pendingOf(first)?.kind).toBe("input");
    expect(first.isError).toBe(true);
    expect(first.output).toBe("Which environment?");
  });

  it("finishes with the answer's data on the second pass", async () => {
    const request = pendingOf(await deploy.execute({}, {}))!;
    const answer: Answer = { id: request.id, ok: true, data: { env: "staging" } };
    expect(await deploy.execute({}, { answer })).toEqual({
      output: "deployed to staging",
      isError: false,
    });
  });

  it("treats a refusal as a normal outcome, not a throw", async () => {
    const request = pendingOf(await deploy.execute({}, {}))!;
    const refused = await deploy.execute(
      {},
      { answer: { id: request.id, ok: false, reason: "declined" } },
    );
    expect(refused).toEqual({ output: "declined: declined", isError: true });
  });
});

describe("5. the ctx opt-in flag", () => {
  it("without ctx: true, run receives exactly one argument even when execute gets a context", async () => {
    const counted = nativeTool({
      name: "count_args",
      description: "How many arguments did run get?",
      run: (...received: unknown[]) => received.length,
    });
    expect((await counted.execute({}, { agent: "a", sessionId: "s" })).output).toBe("1");
    expect((await counted.execute({})).output).toBe("1");
  });

  it("never hands a context to an optional second parameter", async () => {
    const optional = nativeTool({
      name: "optional_second",
      description: "Has an optional second parameter",
      run: (_args: Record<string, unknown>, second?: string) => second ?? "nothing",
    });
    expect((await optional.execute({}, { agent: "a" })).output).toBe("nothing");
  });

  it("with ctx: true, run receives two arguments and ctx is an object on a direct call", async () => {
    const seen: unknown[][] = [];
    const withCtx = nativeTool({
      name: "with_ctx",
      description: "Records what run got",
      ctx: true,
      run: (...received: [Record<string, unknown>, ToolContext]) => {
        seen.push(received);
        return received.length;
      },
    });
    expect((await withCtx.execute({})).output).toBe("2");
    expect(seen[0]?.[1]).toEqual({});
    const ctx: ToolContext = { agent: "a", callId: "c" };
    await withCtx.execute({}, ctx);
    expect(seen[1]?.[1]).toBe(ctx);
  });
});
