// A tiny MCP server for the demo's MCP scene, started by the demo over stdio: newline-delimited
// JSON-RPC, 2025 protocol, no SDK. Its one tool, `book_release_window`, asks the human a form
// question (elicitation/create) in the middle of the call, then answers with the slot chosen.
import { createInterface } from "node:readline";

// JSON from the peer, read defensively.
// biome-ignore lint/suspicious/noExplicitAny: wire data of unknown shape
type Wire = any;
type Message = {
  jsonrpc: "2.0";
  id?: number | string;
  method?: string;
  params?: Wire;
  result?: Wire;
};

const send = (message: Message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const waiting = new Map<number | string, (result: Wire) => void>();
let nextId = 1;

function ask(params: unknown): Promise<Wire> {
  const id = `ask-${nextId++}`;
  send({ jsonrpc: "2.0", id, method: "elicitation/create", params });
  return new Promise((resolve) => waiting.set(id, resolve));
}

const TOOL = {
  name: "book_release_window",
  description: "Books a deploy window for a release; asks the release manager which slot",
  inputSchema: {
    type: "object",
    properties: { release: { type: "string", description: "The release, e.g. 2.4.1" } },
    required: ["release"],
  },
};

async function call(id: number | string, params: Wire) {
  const release = String(params?.arguments?.release ?? "?");
  const token = params?._meta?.progressToken;
  if (token !== undefined) {
    send({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: token, progress: 1, total: 2, message: "checking the calendar" },
    });
  }
  const reply = await ask({
    mode: "form",
    message: `Which deploy window for ${release}?`,
    requestedSchema: {
      type: "object",
      properties: {
        slot: {
          type: "string",
          enum: ["today 16:00", "tomorrow 09:00"],
          default: "tomorrow 09:00",
        },
      },
      required: ["slot"],
    },
  });
  const text =
    reply?.action === "accept"
      ? `Booked ${release} for ${String(reply.content?.slot)}.`
      : `No window booked for ${release} (${String(reply?.action)}).`;
  send({
    jsonrpc: "2.0",
    id,
    result: { content: [{ type: "text", text }], isError: reply?.action !== "accept" },
  });
}

createInterface({ input: process.stdin }).on("line", (line) => {
  let message: Message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (message.method === undefined && message.id !== undefined) {
    waiting.get(message.id)?.(message.result);
    waiting.delete(message.id);
    return;
  }
  const { id, method, params } = message;
  if (id === undefined) return; // notifications (initialized, cancelled)
  if (method === "initialize") {
    send({
      jsonrpc: "2.0",
      id,
      result: {
        protocolVersion: "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "release-calendar", version: "1.0.0" },
      },
    });
  } else if (method === "tools/list") send({ jsonrpc: "2.0", id, result: { tools: [TOOL] } });
  else if (method === "tools/call") void call(id, params);
  else if (method === "ping") send({ jsonrpc: "2.0", id, result: {} });
  else
    send({
      jsonrpc: "2.0",
      id,
      error: { code: -32601, message: `Method not found: ${method}` },
    } as never);
});
