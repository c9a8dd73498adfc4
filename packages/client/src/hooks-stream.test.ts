import { getEventListeners } from "node:events";
import { ok, pending, type ToolContext } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createClient } from "./client.js";
import { RunCancelledError } from "./errors.js";
import { scriptedModel } from "./testing.js";
import type { RunEvent } from "./types.js";

const echo = nativeTool({
  name: "echo",
  description: "Echoes its text",
  input: z.object({ text: z.string() }),
  run: ({ text }) => text,
});

const echoOnce = (text = "hi") =>
  scriptedModel([
    { toolCalls: [{ id: "c1", name: "echo", arguments: { text } }] },
    { content: "done" },
  ]);

const toolOutput = (messages: { role: string; content?: string }[]) =>
  messages.find((m) => m.role === "tool")?.content;

describe("hooks", () => {
  it("beforeTool can rewrite args", async () => {
    const result = await createClient({
      model: echoOnce("secret"),
      tools: [echo],
      hooks: { beforeTool: ({ args }) => ({ args: { ...args, text: "[redacted]" } }) },
    }).run("go");
    expect(toolOutput(result.messages)).toBe("[redacted]");
  });

  it("beforeTool can short-circuit with a result; the tool does not run", async () => {
    let ran = false;
    const spy = nativeTool({
      name: "echo",
      description: "d",
      run: () => {
        ran = true;
        return "real";
      },
    });
    const result = await createClient({
      model: echoOnce(),
      tools: [spy],
      hooks: { beforeTool: () => ({ result: ok("from cache") }) },
    }).run("go");
    expect(ran).toBe(false);
    expect(toolOutput(result.messages)).toBe("from cache");
  });

  it("beforeTool can raise a suspension, handled like the tool's own", async () => {
    const seen: ToolContext[] = [];
    const guarded = nativeTool({
      name: "echo",
      description: "d",
      ctx: true,
      run: (_args, ctx) => {
        seen.push(ctx);
        return "ran";
      },
    });
    const asked: string[] = [];
    const result = await createClient({
      model: echoOnce(),
      tools: [guarded],
      hooks: {
        beforeTool: ({ ctx }) =>
          ctx.answer === undefined
            ? pending({ kind: "approval", prompt: "Policy check: allow?" })
            : undefined,
      },
      waitFor: (request) => {
        asked.push(request.prompt);
        return { id: request.id, ok: true };
      },
    }).run("go");
    expect(asked).toEqual(["Policy check: allow?"]);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.answer?.ok).toBe(true);
    expect(toolOutput(result.messages)).toBe("ran");
  });

  it("afterTool can replace a result and is not called for a suspension", async () => {
    const statuses: string[] = [];
    const asks = nativeTool({
      name: "echo",
      description: "d",
      ctx: true,
      run: (_a, ctx) => (ctx.answer ? "answered" : pending({ kind: "question", prompt: "?" })),
    });
    const result = await createClient({
      model: echoOnce(),
      tools: [asks],
      hooks: {
        afterTool: ({ result }) => {
          statuses.push(result.output);
          return ok(`${result.output} (checked)`);
        },
      },
      waitFor: (request) => ({ id: request.id, ok: true }),
    }).run("go");
    expect(statuses).toEqual(["answered"]);
    expect(toolOutput(result.messages)).toBe("answered (checked)");
  });

  it("a hook that throws becomes an error result, not a crash", async () => {
    const result = await createClient({
      model: echoOnce(),
      tools: [echo],
      hooks: {
        beforeTool: () => {
          throw new Error("policy service down");
        },
      },
    }).run("go");
    expect(toolOutput(result.messages)).toBe("beforeTool hook failed: policy service down");
  });

  it("beforeModel and afterModel see and may rewrite each model call", async () => {
    const turns: number[] = [];
    const result = await createClient({
      model: scriptedModel([{ content: "raw answer" }]),
      hooks: {
        beforeModel: (request, { turn }) => {
          turns.push(turn);
          return {
            ...request,
            messages: [...request.messages, { role: "system", content: "late rule" }],
          };
        },
        afterModel: (response) => ({ ...response, text: response.text.toUpperCase() }),
      },
    }).run("go");
    expect(turns).toEqual([1]);
    expect(result.text).toBe("RAW ANSWER");
  });
});

describe("what listeners and hooks get is theirs to change", () => {
  const login = nativeTool({
    name: "login",
    description: "Logs in",
    input: z.object({ user: z.string(), password: z.string() }),
    run: ({ user, password }) => `token=${password.length} for ${user}`,
  });
  const loginOnce = () =>
    scriptedModel([
      {
        toolCalls: [{ id: "c1", name: "login", arguments: { user: "bob", password: "hunter22" } }],
      },
      { content: "logged in" },
    ]);
  const transcriptArgs = (messages: readonly { role: string; toolCalls?: { args: object }[] }[]) =>
    messages.find((m) => m.role === "assistant" && m.toolCalls)?.toolCalls?.[0]?.args;

  it("an onEvent that masks a call's arguments or a result changes neither the tool nor the transcript", async () => {
    const result = await createClient({
      model: loginOnce(),
      tools: [login],
      onEvent: (event) => {
        if (event.type === "tool_call") (event.call.args as { password: string }).password = "***";
        if (event.type === "tool_result") event.record.result.output = "masked";
        if (event.type === "message") event.message.content = "changed";
      },
    }).run("go");
    expect(toolOutput(result.messages)).toBe("token=8 for bob");
    expect(transcriptArgs(result.messages)).toEqual({ user: "bob", password: "hunter22" });
    expect(result.messages.some((m) => m.content === "changed")).toBe(false);
    expect(result.toolCalls[0]?.result.output).toBe("token=8 for bob");
  });

  it("a stream reader that edits events changes nothing either", async () => {
    const client = createClient({ model: loginOnce(), tools: [login] });
    let final: RunEvent | undefined;
    for await (const event of client.stream("go")) {
      if (event.type === "tool_call") (event.call.args as { password: string }).password = "***";
      final = event;
    }
    const result = final?.type === "done" ? final.result : undefined;
    expect(toolOutput(result?.messages ?? [])).toBe("token=8 for bob");
    expect(transcriptArgs(result?.messages ?? [])).toEqual({ user: "bob", password: "hunter22" });
  });

  it("beforeModel editing messages in place changes what the model sees this turn, not the transcript", async () => {
    const model = scriptedModel([{ content: "ok" }]);
    const result = await createClient({
      model,
      hooks: {
        beforeModel: (request) => {
          for (const message of request.messages) {
            if (message.role === "user")
              message.content = message.content.replace(/\S+@\S+/, "<email>");
          }
          return undefined;
        },
      },
    }).run("mail ann@example.com");
    expect(model.requests[0]?.messages[0]?.content).toBe("mail <email>");
    expect(result.messages[0]?.content).toBe("mail ann@example.com");
  });

  it("beforeTool editing args in place changes what the tool gets, not the transcript's call", async () => {
    const result = await createClient({
      model: loginOnce(),
      tools: [login],
      hooks: {
        beforeTool: ({ args, call }) => {
          args.user = "alice";
          (call.args as { password: string }).password = "***";
          return undefined;
        },
      },
    }).run("go");
    expect(toolOutput(result.messages)).toBe("token=8 for alice");
    expect(transcriptArgs(result.messages)).toEqual({ user: "bob", password: "hunter22" });
  });
});

describe("stream", () => {
  it("yields text deltas, the calls, results and usage, and ends with done carrying the RunResult", async () => {
    const model = scriptedModel([
      {
        toolCalls: [{ id: "c1", name: "echo", arguments: { text: "ping" } }],
        usage: { promptTokens: 3, completionTokens: 1 },
      },
      { content: "The tool said ping, all good.", usage: { promptTokens: 5, completionTokens: 7 } },
    ]);
    const events: RunEvent[] = [];
    for await (const event of createClient({ model, tools: [echo] }).stream("go"))
      events.push(event);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("usage");
    expect(types.slice(1, 4)).toEqual(["message", "tool_call", "tool_result"]);
    expect(types.at(-1)).toBe("done");
    const text = events.flatMap((e) => (e.type === "text" ? [e.delta] : [])).join("");
    expect(text).toBe("The tool said ping, all good.");
    expect(events.filter((e) => e.type === "text").length).toBeGreaterThan(1);
    const done = events.at(-1);
    if (done?.type !== "done") throw new Error("expected done last");
    expect(done.result.status).toBe("done");
    expect(done.result.text).toBe("The tool said ping, all good.");
    expect(done.result.usage.totalTokens).toBe(16);
  });

  it("gives the same outcome as run", async () => {
    const script = () =>
      scriptedModel([
        {
          toolCalls: [{ id: "c1", name: "echo", arguments: { text: "a" } }],
          usage: { promptTokens: 1, completionTokens: 1 },
        },
        { content: "finished", usage: { promptTokens: 2, completionTokens: 2 } },
      ]);
    const ran = await createClient({ model: script(), tools: [echo] }).run("go");
    let streamed: RunEvent | undefined;
    for await (const event of createClient({ model: script(), tools: [echo] }).stream("go"))
      streamed = event;
    if (streamed?.type !== "done") throw new Error("expected done");
    expect(streamed.result.text).toBe(ran.text);
    expect(streamed.result.usage).toEqual(ran.usage);
    expect(streamed.result.messages.map((m) => m.role)).toEqual(ran.messages.map((m) => m.role));
  });

  it("breaking out of the loop cancels the run and its tools", async () => {
    let toolSignal: AbortSignal | undefined;
    const hang = nativeTool({
      name: "hang",
      description: "d",
      ctx: true,
      run: (_a, ctx) => {
        toolSignal = ctx.signal;
        return new Promise(() => {});
      },
    });
    const stream = createClient({
      model: scriptedModel([{ toolCalls: [{ name: "hang" }] }, { content: "never" }]),
      tools: [hang],
    }).stream("go");
    for await (const event of stream) if (event.type === "tool_call") break;
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(toolSignal?.aborted).toBe(true);
  });

  it("surfaces a cancellation as a thrown RunCancelledError", async () => {
    const controller = new AbortController();
    controller.abort();
    const iterate = async () => {
      for await (const _ of createClient({ model: scriptedModel([{ content: "x" }]) }).stream(
        "go",
        {
          signal: controller.signal,
        },
      )) {
        // nothing
      }
    };
    await expect(iterate()).rejects.toBeInstanceOf(RunCancelledError);
  });

  it("leaves no listener on a long-lived signal shared by many streams, read or left early", async () => {
    const shared = new AbortController();
    const model = {
      id: "m",
      generate: async () => ({ id: "r", text: "x", toolCalls: [], finishReason: "stop" as const }),
    };
    const client = createClient({ model });
    for (let i = 0; i < 50; i++) {
      // Every other stream is left at its first event.
      for await (const _ of client.stream("go", { signal: shared.signal })) if (i % 2 === 1) break;
    }
    // A stream never iterated links nothing either.
    client.stream("never read", { signal: shared.signal });
    expect(getEventListeners(shared.signal, "abort")).toHaveLength(0);
  });

  it("still cancels a stream when the shared signal aborts while it runs", async () => {
    const shared = new AbortController();
    const hang = nativeTool({
      name: "hang",
      description: "d",
      input: z.object({}),
      ctx: true,
      run: (_args, ctx: ToolContext) =>
        new Promise((_, reject) =>
          ctx.signal?.addEventListener("abort", () => reject(new Error("stopped"))),
        ),
    });
    const client = createClient({
      model: scriptedModel([{ toolCalls: [{ name: "hang" }] }, { content: "never" }]),
      tools: [hang],
    });
    const iterate = async () => {
      for await (const event of client.stream("go", { signal: shared.signal })) {
        if (event.type === "tool_call") shared.abort();
      }
    };
    await expect(iterate()).rejects.toBeInstanceOf(RunCancelledError);
    expect(getEventListeners(shared.signal, "abort")).toHaveLength(0);
  });
});

describe("ask: conversations by session", () => {
  it("continues the session's transcript on the next ask, and is one-shot without a sessionId", async () => {
    const model = scriptedModel([
      { content: "Nice to meet you, Ada." },
      { content: "Your name is Ada." },
      { content: "?" },
    ]);
    const client = createClient({ model, systemPrompt: "You are kind." });
    await client.ask("My name is Ada.", { sessionId: "s1" });
    const second = await client.ask("What is my name?", { sessionId: "s1" });
    expect(second.text).toBe("Your name is Ada.");
    expect(model.requests[1]!.messages).toEqual([
      { role: "system", content: "You are kind." },
      { role: "user", content: "My name is Ada." },
      expect.objectContaining({ role: "assistant", content: "Nice to meet you, Ada." }),
      { role: "user", content: "What is my name?" },
    ]);
    await client.ask("Who am I?");
    expect(model.requests[2]!.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(await client.conversations.load("s1")).toHaveLength(5);
  });

  it("saves the conversation when a halted ask finishes after resume", async () => {
    const deploy = nativeTool({
      name: "deploy",
      description: "d",
      ctx: true,
      run: (_a, ctx) =>
        ctx.answer ? "deployed" : pending({ kind: "approval", prompt: "Deploy?" }),
    });
    const client = createClient({
      model: scriptedModel([
        { toolCalls: [{ id: "c1", name: "deploy" }] },
        { content: "Deployed." },
      ]),
      tools: [deploy],
    });
    const halted = await client.ask("deploy", { sessionId: "s2" });
    if (halted.status !== "pending") throw new Error("expected a halt");
    expect(await client.conversations.load("s2")).toBeUndefined();
    await client.resume({ id: halted.pending.id, ok: true });
    const saved = await client.conversations.load("s2");
    expect(saved?.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  });
});
