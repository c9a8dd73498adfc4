// The recorded shape of an OpenAI Chat Completions stream (`stream: true`,
// `stream_options.include_usage`), grown to about 5,000 events: a first chunk with the role, one
// chunk per delta, the finish chunk, the usage chunk, then `data: [DONE]`. Every chunk carries
// the fields the real API sends (id, object, created, model, system_fingerprint, service_tier,
// obfuscation padding, logprobs, usage: null), so the bytes per event are the real ones.

const ID = "chatcmpl-CJ4u2xVbXnb2QdHnmW5yZ0aA1pT7r";
const HEAD = `{"id":"${ID}","object":"chat.completion.chunk","created":1764892800,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_560af6e559","choices":[`;
const WORDS = ["The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", "."];

const chunk = (choice, obfuscation, usage = "null") =>
  `data: ${HEAD}${choice}],"usage":${usage},"obfuscation":"${obfuscation}"}\n\n`;
const pad = (i) => `Xq${((i * 2654435761) >>> 0).toString(36)}`.slice(0, 8);
const usage =
  '{"prompt_tokens":412,"completion_tokens":5001,"total_tokens":5413,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}';

/**
 * The whole stream as bytes. `kind` "text": `deltas` content deltas; "tool": one tool call whose
 * arguments come in `deltas` fragments. `events` counts the SSE events, `[DONE]` included.
 */
export function chatStream(kind, deltas = 5000) {
  const out = [];
  if (kind === "text") {
    out.push(
      chunk(
        '{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}',
        "Xq",
      ),
    );
    for (let i = 0; i < deltas; i++) {
      const word = JSON.stringify(WORDS[i % WORDS.length]);
      out.push(
        chunk(
          `{"index":0,"delta":{"content":${word}},"logprobs":null,"finish_reason":null}`,
          pad(i),
        ),
      );
    }
    out.push(chunk('{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}', "Xq"));
  } else {
    out.push(
      chunk(
        '{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_Kq3v9pX2mN8bR4tY7wZ1aC5d","type":"function","function":{"name":"write_file","arguments":""}}],"refusal":null},"logprobs":null,"finish_reason":null}',
        "Xq",
      ),
    );
    // The arguments: {"path":"notes.txt","text":"word word …"}, cut into fragments.
    const fragments = ['{"path":"notes.txt","text":"'];
    for (let i = 1; i < deltas - 1; i++) fragments.push(WORDS[i % WORDS.length]);
    fragments.push('"}');
    for (const [i, fragment] of fragments.entries()) {
      out.push(
        chunk(
          `{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":${JSON.stringify(fragment)}}}]},"logprobs":null,"finish_reason":null}`,
          pad(i),
        ),
      );
    }
    out.push(chunk('{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}', "Xq"));
  }
  out.push(`data: ${HEAD}],"usage":${usage},"obfuscation":"Xq"}\n\n`);
  out.push("data: [DONE]\n\n");
  const bytes = Buffer.from(out.join(""), "utf8");
  return { bytes, events: out.length };
}
