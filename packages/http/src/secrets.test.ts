// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" in a header is the contract's env syntax, not a mistaken template.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpTool } from "./index.js";
import { Secrets } from "./secrets.js";
import { startServer, type TestServer } from "./test-server.js";

/** A base64 token: it has a `/`, which some encoders write `\/`. */
const TOKEN = "Zm9vYmFy/c2VjcmV0+dG9rZW4=";
const uEscaped = (text: string) =>
  text
    .split("")
    .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`)
    .join("");

describe("Secrets.redact", () => {
  const secrets = new Secrets([TOKEN]);

  it("as is, URL-encoded, JSON-escaped, with `\\/`", () => {
    expect(secrets.redact(`a ${TOKEN} b`)).toBe("a [redacted] b");
    expect(secrets.redact(`a=${encodeURIComponent(TOKEN)}`)).toBe("a=[redacted]");
    // Lower-case hex, as some servers and proxies write it.
    expect(secrets.redact("a=Zm9vYmFy%2fc2VjcmV0%2bdG9rZW4%3d")).toBe("a=[redacted]");
    expect(secrets.redact(`{"k":"Zm9vYmFy\\/c2VjcmV0+dG9rZW4="}`)).toBe('{"k":"[redacted]"}');
  });

  it("escaped as \\uXXXX, wholly or in part, in JSON or in any text", () => {
    expect(secrets.redact(`{"k":"${uEscaped(TOKEN)}","n":"\\u0041\\/"}`)).toBe(
      '{"k":"[redacted]","n":"\\u0041\\/"}',
    );
    const mixed = `Zm9v\\u0059mFy\\u002Fc2VjcmV0\\u002bdG9rZW4\\u003d`;
    expect(secrets.redact(`error: key ${mixed} refused`)).toBe("error: key [redacted] refused");
  });

  it("inside a JSON document quoted in a JSON string", () => {
    const inner = `{"seen":"${uEscaped(TOKEN)}"}`;
    const outer = JSON.stringify({ detail: inner });
    expect(outer).toContain("\\\\u005a");
    expect(secrets.redact(outer)).toBe('{"detail":"{\\"seen\\":\\"[redacted]\\"}"}');
  });

  it("leaves text without a secret exactly as it was, escapes included", () => {
    const text = '{ "path": "a\\/b", "name": "\\u0041da", "n": 1 }';
    expect(secrets.redact(text)).toBe(text);
    expect(new Secrets([]).redact(`${TOKEN}`)).toBe(TOKEN);
  });

  it("several secrets, overlapping and adjacent ones", () => {
    const two = new Secrets(["abcdef", "defghi", "zzzz"]);
    expect(two.redact("xabcdefghiy")).toBe("x[redacted]y");
    expect(two.redact("zzzzzzzz")).toBe("[redacted]");
    expect(two.redact("abcdef abcdef")).toBe("[redacted] [redacted]");
  });

  it("not values shorter than 4 characters", () => {
    expect(new Secrets(["abc"]).redact("abc abcd")).toBe("abc abcd");
  });
});

describe("Secrets.redactCut", () => {
  const secrets = new Secrets([TOKEN]);

  it("drops a secret's beginning left at the end, as is or `\\/`-escaped", () => {
    expect(secrets.redactCut("seen Zm9vYmFy/c2V")).toBe("seen ");
    expect(secrets.redactCut('seen "Zm9vYmFy\\/c2V')).toBe('seen "');
  });

  it("drops it \\u-escaped, and an escape the cut left unfinished", () => {
    const escaped = uEscaped(TOKEN);
    expect(secrets.redactCut(`{"k":"${escaped.slice(0, 6 * 9)}`)).toBe('{"k":"');
    expect(secrets.redactCut(`{"k":"${escaped.slice(0, 6 * 9 + 4)}`)).toBe('{"k":"');
    expect(secrets.redactCut(`{"k":"\\u00`)).toBe('{"k":"');
  });

  it("redacts the whole secrets before the cut and keeps other text", () => {
    expect(secrets.redactCut(`${uEscaped(TOKEN)} and more`)).toBe("[redacted] and more");
    expect(secrets.redactCut('{"a":"\\\\","b":"xyz')).toBe('{"a":"\\\\","b":"xyz');
  });
});

describe("a server echoing a secret JSON-escaped", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server.close();
  });
  const tool = (path: string) =>
    httpTool({
      name: "t",
      description: "d",
      url: `${server.base}${path}`,
      headers: { "X-Api-Key": "${TOK}" },
      env: { TOK: TOKEN },
    });

  it("with `\\/` (PHP, Java): the 200 result keeps the rest of the body as sent", async () => {
    const result = await tool("/echo-escaped/slash/200").execute({});
    expect(result.isError).toBe(false);
    expect(result.output).toContain('"x-api-key":"[redacted]"');
    expect(result.output).toContain('"accept":"*\\/*"');
    expect(result.output).not.toContain("c2VjcmV0");
    expect(JSON.parse(result.output)).toMatchObject({ "x-api-key": "[redacted]", accept: "*/*" });
  });

  it("with \\uXXXX escapes: the error result", async () => {
    const result = await tool("/echo-escaped/unicode/403").execute({});
    expect(result.isError).toBe(true);
    expect(result.metadata).toEqual({ status: 403 });
    expect(result.output).toMatch(/^HTTP 403: \{/);
    expect(result.output).not.toContain(uEscaped("c2VjcmV0"));
    const body = JSON.parse(result.output.slice("HTTP 403: ".length));
    expect(body).toMatchObject({ "x-api-key": "[redacted]", accept: "*/*" });
  });

  it("in resultMode json too", async () => {
    const json = httpTool({
      name: "t",
      description: "d",
      url: `${server.base}/echo-escaped/unicode/200`,
      headers: { "X-Api-Key": "${TOK}" },
      env: { TOK: TOKEN },
      resultMode: "json",
    });
    const result = await json.execute({});
    expect(JSON.parse(result.output)).toMatchObject({ "x-api-key": "[redacted]" });
    expect(result.output).not.toContain(TOKEN);
  });
});
