// Loopback stand-ins for an OpenAI-compatible server and the Anthropic Messages API. They speak
// each wire format and answer with the scripted assistant's turns, so `--provider` is tested
// through the real adapters over real HTTP, with no network and no key.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Message, ToolCall } from "@toolnexus/core";
import { scriptedTurn } from "../src/director.js";

export interface FakeProvider {
  baseUrl: string;
  /** Every request body received, parsed. */
  requests: Record<string, unknown>[];
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

/** The OpenAI wire has no error flag on tool results; a model reads the text, and so do we. */
const ERROR_TEXT = /^(timed out after|declined\/expired:|unresolved:|cannot deploy|unknown tool)/;

function fromOpenAI(body: Json): Message[] {
  const names = new Map<string, string>();
  return (body.messages as Json[]).map((m): Message => {
    if (m.role === "assistant") {
      const calls = ((m.tool_calls as Json[] | undefined) ?? []).map((tc): ToolCall => {
        const fn = tc.function as { name: string; arguments: string };
        names.set(String(tc.id), fn.name);
        return {
          id: String(tc.id),
          name: fn.name,
          args: JSON.parse(fn.arguments || "{}") as Json,
          rawArgs: fn.arguments,
        };
      });
      const message: Message = { role: "assistant", id: "a", content: String(m.content ?? "") };
      if (calls.length > 0) message.toolCalls = calls;
      return message;
    }
    if (m.role === "tool") {
      const content = String(m.content);
      const callId = String(m.tool_call_id);
      return {
        role: "tool",
        callId,
        name: names.get(callId) ?? "",
        content,
        isError: ERROR_TEXT.test(content),
      };
    }
    return { role: m.role as "system" | "user", content: String(m.content) };
  });
}

function fromAnthropic(body: Json): Message[] {
  const messages: Message[] = [];
  if (typeof body.system === "string") messages.push({ role: "system", content: body.system });
  const names = new Map<string, string>();
  for (const m of body.messages as Json[]) {
    const blocks: Json[] =
      typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content as Json[]);
    if (m.role === "assistant") {
      const calls = blocks
        .filter((b) => b.type === "tool_use")
        .map((b): ToolCall => {
          names.set(String(b.id), String(b.name));
          return {
            id: String(b.id),
            name: String(b.name),
            args: b.input as Json,
            rawArgs: JSON.stringify(b.input),
          };
        });
      const text = blocks
        .filter((b) => b.type === "text")
        .map((b) => String(b.text))
        .join("");
      const message: Message = { role: "assistant", id: "a", content: text };
      if (calls.length > 0) message.toolCalls = calls;
      messages.push(message);
    } else {
      for (const b of blocks) {
        if (b.type === "tool_result") {
          const callId = String(b.tool_use_id);
          const content =
            typeof b.content === "string"
              ? b.content
              : (b.content as Json[]).map((c) => String(c.text ?? "")).join("");
          messages.push({
            role: "tool",
            callId,
            name: names.get(callId) ?? "",
            content,
            isError: b.is_error === true,
          });
        } else if (b.type === "text") {
          messages.push({ role: "user", content: String(b.text) });
        }
      }
    }
  }
  return messages;
}

let counter = 0;

function toOpenAI(messages: Message[]): Json {
  const turn = scriptedTurn(messages);
  const calls = (turn.toolCalls ?? []).map((c) => ({
    id: c.id,
    type: "function",
    function: { name: c.name, arguments: JSON.stringify(c.arguments ?? {}) },
  }));
  return {
    id: `chatcmpl-${++counter}`,
    object: "chat.completion",
    model: "fake-model",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: turn.content ?? null,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
        },
        finish_reason: calls.length > 0 ? "tool_calls" : "stop",
      },
    ],
    usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
  };
}

function toAnthropic(messages: Message[]): Json {
  const turn = scriptedTurn(messages);
  const content: Json[] = [];
  if (turn.content) content.push({ type: "text", text: turn.content });
  for (const c of turn.toolCalls ?? []) {
    content.push({ type: "tool_use", id: c.id, name: c.name, input: c.arguments ?? {} });
  }
  return {
    id: `msg_fake_${++counter}`,
    type: "message",
    role: "assistant",
    model: "fake-model",
    content,
    stop_reason: (turn.toolCalls ?? []).length > 0 ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 100, output_tokens: 20 },
  };
}

export async function fakeProvider(kind: "openai" | "anthropic"): Promise<FakeProvider> {
  const requests: Json[] = [];
  const server = createServer(async (req, res) => {
    let text = "";
    for await (const chunk of req) text += chunk;
    const expected = kind === "openai" ? "/v1/chat/completions" : "/v1/messages";
    if (req.method !== "POST" || req.url !== expected) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
      return;
    }
    const body = JSON.parse(text) as Json;
    requests.push(body);
    const reply = kind === "openai" ? toOpenAI(fromOpenAI(body)) : toAnthropic(fromAnthropic(body));
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(reply));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: kind === "openai" ? `http://127.0.0.1:${port}/v1` : `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
