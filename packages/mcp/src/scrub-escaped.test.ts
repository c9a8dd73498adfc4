// A server that puts a header value it received into JSON of its own may escape it (`\/` from
// PHP's and Java's encoders, `\u00xx` from others): the tool output must hold neither the secret
// nor any fragment of it, however it was spelled.
import { createClient } from "@toolnexus/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HttpServer, httpMcp } from "./fixtures/http-mcp.js";
import { loadMcp, type McpToolset } from "./index.js";
import { script } from "./test-support.js";

// `${NAME}` is the config's placeholder syntax, not a template literal.
const placeholder = (name: string) => ["$", "{", name, "}"].join("");
/** Base64-like, so it has the `/` that `\/` escapes. */
const TOKEN = "tok/escaped+very/secret-7";

/** `text` with every `/` written `\/`. */
const slashEscaped = (text: string) => text.replaceAll("/", "\\/");
/** `text` with every character written `\u00xx`. */
const uEscaped = (text: string) =>
  text.replace(/[\s\S]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/** `text` with the escapes above undone, to look for the secret in what they spell. */
const unescaped = (text: string) =>
  text
    .replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    )
    .replaceAll("\\/", "/");

/** Every piece of `secret` of 4 characters. */
const fragments = (secret: string) =>
  Array.from({ length: secret.length - 3 }, (_, at) => secret.slice(at, at + 4));

describe("a header secret echoed JSON-escaped by a Streamable HTTP server", () => {
  let server: HttpServer;
  let mcp: McpToolset;
  beforeAll(async () => {
    const token = (headers: Record<string, unknown>) =>
      String(headers.authorization).replace(/^Bearer /, "");
    server = await httpMcp({
      tools: [
        {
          name: "echo",
          description: "Echoes its credential in JSON of its own",
          call: (_args, headers) => {
            const received = token(headers);
            const json = [
              `"slash":"${slashEscaped(received)}"`,
              `"unicode":"${uEscaped(received)}"`,
              `"upper":"${uEscaped(received).toUpperCase().replaceAll("\\U", "\\u")}"`,
              `"mixed":"\\u0074ok${slashEscaped(received.slice(3))}"`,
              `"header":"${slashEscaped(String(headers.authorization))}"`,
            ].join(",");
            return { result: { content: [{ type: "text", text: `{${json},"kept":"a\\/b"}` }] } };
          },
        },
      ],
    });
    mcp = await loadMcp(
      {
        mcpServers: {
          api: {
            url: server.url,
            protocol: "2025",
            headers: { Authorization: `Bearer ${placeholder("ACME_TOKEN")}` },
          },
        },
      },
      { env: { ACME_TOKEN: TOKEN } },
    );
    expect(mcp.status()).toEqual({ api: "connected" });
  });
  afterAll(async () => {
    await mcp?.close();
    await server?.close();
  });

  it("the tool output has no trace of it, and the rest of the text is kept as sent", async () => {
    const client = createClient({
      model: script([
        { toolCalls: [{ id: "e", name: "api_echo", arguments: {} }] },
        { content: "done" },
      ]),
      tools: mcp.tools(),
    });
    const result = await client.run("go");
    expect(result.status).toBe("done");
    const output = result.toolCalls[0]?.result.output ?? "";
    // Each spelling became one `***`; the server's other escapes are kept as sent.
    expect(output).toBe(
      '{"slash":"***","unicode":"***","upper":"***","mixed":"***","header":"***","kept":"a\\/b"}',
    );
    // No piece of the token is left, escaped or not, in the output or the run's messages (what
    // the model was sent).
    const messages = JSON.stringify(result.messages);
    expect(messages).toContain("***");
    for (const text of [output, unescaped(output), unescaped(messages)]) {
      for (const piece of fragments(TOKEN)) expect(text).not.toContain(piece);
    }
  });
});
