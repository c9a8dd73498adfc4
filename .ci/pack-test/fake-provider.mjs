// A fake model provider for the README examples, on the mock server that
// `@toolnexus/provider-utils/testing` ships (built in the workspace). Each example gets its own
// path prefix (`/<run>/v1/...`), so the test can tell which example sent what. When a request
// offers tools and carries no tool result yet, the fake model calls the first tool (arguments
// made up from its schema); otherwise it answers REPLY. So an example with a tool makes a whole
// round trip through the packed adapter.
import { sseEvent, startMockServer } from "../../packages/provider-utils/dist/testing.js";

export const REPLY = "Hello from the pack test's fake model.";

/** How each provider API is reached and spoken. */
const APIS = {
  openai: {
    route: /^\/([\w-]+)\/v1\/chat\/completions$/,
    env: (base, run) => ({ OPENAI_BASE_URL: `${base}/${run}/v1` }),
    tools: (body) =>
      (body.tools ?? []).map((t) => ({ name: t.function?.name, schema: t.function?.parameters })),
    hasToolResult: (body) => (body.messages ?? []).some((m) => m?.role === "tool"),
    reply: openaiReply,
  },
  anthropic: {
    route: /^\/([\w-]+)\/v1\/messages$/,
    env: (base, run) => ({ ANTHROPIC_BASE_URL: `${base}/${run}` }),
    tools: (body) => (body.tools ?? []).map((t) => ({ name: t.name, schema: t.input_schema })),
    hasToolResult: (body) =>
      (body.messages ?? []).some(
        (m) =>
          m?.role === "user" &&
          Array.isArray(m.content) &&
          m.content.some((b) => b?.type === "tool_result"),
      ),
    reply: anthropicReply,
  },
  google: {
    route:
      /^\/([\w-]+)\/v1beta\/models\/[^/:]+:(?:generateContent|streamGenerateContent)(?:\?.*)?$/,
    isStream: (request) => request.path.includes(":streamGenerateContent"),
    env: (base, run) => ({ GOOGLE_GEMINI_BASE_URL: `${base}/${run}/v1beta` }),
    tools: (body) =>
      (body.tools ?? [])
        .flatMap((t) => t.functionDeclarations ?? [])
        .map((d) => ({ name: d.name, schema: d.parameters ?? d.parametersJsonSchema })),
    hasToolResult: (body) =>
      (body.contents ?? []).some(
        (c) => Array.isArray(c?.parts) && c.parts.some((p) => p?.functionResponse !== undefined),
      ),
    reply: googleReply,
  },
};

/** Whether a request asks for a stream: a `stream: true` body, or (Gemini) the path says so. */
const isStream = (api, request) => APIS[api].isStream?.(request) ?? request.body?.stream === true;

/** The packages whose README example must talk to the fake provider, and the API they speak. */
export const PROVIDER_PACKAGES = {
  "@toolnexus/openai": "openai",
  "@toolnexus/anthropic": "anthropic",
  "@toolnexus/google": "google",
};

export async function startFakeProvider() {
  const server = await startMockServer((request) => {
    const turn = turnOf(request);
    if (turn === undefined)
      return {
        status: 404,
        json: { error: { message: `fake provider: no route ${request.path}` } },
      };
    return APIS[turn.api].reply(turn, turn.stream, request.body.model ?? "fake");
  });
  return {
    close: () => server.close(),
    /** The environment an example runs with: no real keys, every provider pointed here. */
    env(run) {
      const env = { ...process.env };
      for (const key of Object.keys(env)) {
        if (/^(OPENAI|ANTHROPIC|OPENROUTER|GEMINI|GOOGLE)_/.test(key) || key === "NODE_OPTIONS")
          delete env[key];
      }
      for (const api of Object.values(APIS)) Object.assign(env, api.env(server.url, run));
      return env;
    },
    /** What the example of `run` asked the fake provider. */
    turnsOf: (run) => server.requests.map(turnOf).filter((turn) => turn?.run === run),
  };
}

function turnOf(request) {
  for (const [api, spec] of Object.entries(APIS)) {
    const route = spec.route.exec(request.path);
    if (!route || typeof request.body !== "object" || request.body === null) continue;
    const body = request.body;
    const hadToolResult = spec.hasToolResult(body);
    const tool = spec.tools(body)[0];
    const call =
      tool?.name && !hadToolResult
        ? { name: tool.name, args: sample({ type: "object", ...tool.schema }) }
        : undefined;
    return { api, run: route[1], stream: isStream(api, request), hadToolResult, call };
  }
  return undefined;
}

/** A value that fits a JSON Schema, good enough for the README examples' tools. */
function sample(schema) {
  if (Array.isArray(schema?.enum)) return schema.enum[0];
  if (schema?.const !== undefined) return schema.const;
  const type = Array.isArray(schema?.type) ? schema.type[0] : schema?.type;
  if (type === "string") return "Oslo";
  if (type === "number" || type === "integer") return 2;
  if (type === "boolean") return true;
  if (type === "array") return [];
  if (type === "object") {
    return Object.fromEntries(
      Object.entries(schema.properties ?? {}).map(([k, v]) => [k, sample(v)]),
    );
  }
  return null;
}

/** Cuts text in two, so streamed replies arrive in more than one delta. */
const halves = (text) => [text.slice(0, text.length >> 1), text.slice(text.length >> 1)];

function openaiReply({ call }, stream, model) {
  const base = { id: "chatcmpl-packtest", created: 1_700_000_000, model };
  const usage = { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 };
  const finish = call ? "tool_calls" : "stop";
  const args = call ? JSON.stringify(call.args) : "";
  const toolCall = (fn) => ({ index: 0, id: "call_packtest_1", type: "function", function: fn });
  if (!stream) {
    const message = call
      ? {
          role: "assistant",
          content: null,
          tool_calls: [toolCall({ name: call.name, arguments: args })],
        }
      : { role: "assistant", content: REPLY };
    return {
      json: {
        ...base,
        object: "chat.completion",
        choices: [{ index: 0, message, finish_reason: finish }],
        usage,
      },
    };
  }
  const chunk = (choices, extra) =>
    sseEvent({ ...base, object: "chat.completion.chunk", choices, ...extra });
  const delta = (d) => chunk([{ index: 0, delta: d, finish_reason: null }]);
  const parts = halves(call ? args : REPLY).map((part) =>
    delta(call ? { tool_calls: [{ index: 0, function: { arguments: part } }] } : { content: part }),
  );
  const first = call
    ? { role: "assistant", tool_calls: [toolCall({ name: call.name, arguments: "" })] }
    : { role: "assistant", content: "" };
  return {
    chunks: [
      delta(first),
      ...parts,
      chunk([{ index: 0, delta: {}, finish_reason: finish }]),
      chunk([], { usage }),
      sseEvent("[DONE]"),
    ],
  };
}

function anthropicReply({ call }, stream, model) {
  const stop = call ? "tool_use" : "end_turn";
  const message = {
    id: "msg_packtest",
    type: "message",
    role: "assistant",
    model,
    stop_sequence: null,
  };
  if (!stream) {
    const content = call
      ? [{ type: "tool_use", id: "toolu_packtest_1", name: call.name, input: call.args }]
      : [{ type: "text", text: REPLY }];
    return {
      json: {
        ...message,
        content,
        stop_reason: stop,
        usage: { input_tokens: 12, output_tokens: 8 },
      },
    };
  }
  const event = (type, data) => sseEvent({ type, ...data }, type);
  const block = call
    ? { type: "tool_use", id: "toolu_packtest_1", name: call.name, input: {} }
    : { type: "text", text: "" };
  const deltas = halves(call ? JSON.stringify(call.args) : REPLY).map((part) =>
    event("content_block_delta", {
      index: 0,
      delta: call
        ? { type: "input_json_delta", partial_json: part }
        : { type: "text_delta", text: part },
    }),
  );
  return {
    chunks: [
      event("message_start", {
        message: {
          ...message,
          content: [],
          stop_reason: null,
          usage: { input_tokens: 12, output_tokens: 1 },
        },
      }),
      event("content_block_start", { index: 0, content_block: block }),
      ...deltas,
      event("content_block_stop", { index: 0 }),
      event("message_delta", {
        delta: { stop_reason: stop, stop_sequence: null },
        usage: { output_tokens: 8 },
      }),
      event("message_stop", {}),
    ],
  };
}

function googleReply({ call }, stream) {
  const usageMetadata = { promptTokenCount: 12, candidatesTokenCount: 8, totalTokenCount: 20 };
  const candidate = (parts, finishReason) => ({
    content: { role: "model", parts },
    index: 0,
    ...(finishReason === undefined ? {} : { finishReason }),
  });
  const response = (candidates, extra) => ({
    candidates,
    modelVersion: "gemini-packtest",
    responseId: "packtest",
    ...extra,
  });
  const callParts = call ? [{ functionCall: { name: call.name, args: call.args } }] : undefined;
  if (!stream) {
    return {
      json: response([candidate(callParts ?? [{ text: REPLY }], "STOP")], { usageMetadata }),
    };
  }
  // Gemini streams whole parts: text in pieces, a function call in one chunk.
  const chunks = callParts
    ? [response([candidate(callParts, "STOP")], { usageMetadata })]
    : halves(REPLY).map((text, i) =>
        response(
          [candidate([{ text }], i === 1 ? "STOP" : undefined)],
          i === 1 ? { usageMetadata } : {},
        ),
      );
  return { chunks: chunks.map((chunk) => sseEvent(chunk)) };
}
