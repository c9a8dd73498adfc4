// A local server's stderr in its failure reason never carries part of a secret: the tail is
// scrubbed before it is cut (the 2000-character window and the 300-character quote), cuts start
// at a line, and a fragment of a secret at either edge is redacted. Real child processes first,
// then the cut at every position of the token.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadMcp } from "./index.js";
import { Scrubber } from "./scrub.js";
import { REASON_TAIL_CHARS, redactEnd, redactStart, StderrTail } from "./stderr-tail.js";

const TOKEN = "ghp_SECRETSECRET0123456789abcdefABCDEF";
const STDERR_SERVER = join(
  fileURLToPath(new URL(".", import.meta.url)),
  "fixtures",
  "stderr-server.mjs",
);
// `${NAME}` is the config's placeholder syntax, not a template literal.
const placeholder = (name: string) => ["$", "{", name, "}"].join("");

/** Every piece of `secret` 4 characters long (a longer fragment contains one). */
function fragments(secret: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + 4 <= secret.length; i++) out.push(secret.slice(i, i + 4));
  return out;
}

function leaked(text: string): string[] {
  return fragments(TOKEN).filter((fragment) => text.includes(fragment));
}

describe("a local server that logs its token and exits", () => {
  it.each([
    // The security review's server: the token's line, then 280 characters on a line of their own.
    ["the token, then a line of 280 characters", { PAD_LINE: "280" }],
    // One line, whose last 300 characters start 10 characters before the token's end.
    ["the 300-character quote starting inside the token", { PAD_AFTER: "290" }],
    // One line, whose last 2000 characters start 10 characters before the token's end.
    ["the 2000-character window starting inside the token", { PAD_AFTER: "1990" }],
    ["the token written in two chunks", { SPLIT: "1", PAD_AFTER: "1990" }],
    ["the token cut short by the exit", { PAD_BEFORE: "100", CUT_SHORT: "1" }],
  ])("%s: no 4-character piece of the token is in the reason", async (_name, settings) => {
    const mcp = await loadMcp(
      {
        mcpServers: {
          gh: {
            command: process.execPath,
            args: [STDERR_SERVER],
            env: { API_TOKEN: placeholder("GH_TOKEN"), ...settings },
          },
        },
      },
      { env: { ...process.env, GH_TOKEN: TOKEN } },
    );
    try {
      const [info] = mcp.servers();
      expect(info?.status).toBe("failed");
      expect(info?.reason).toContain("(stderr: ");
      expect(leaked(info?.reason ?? "")).toEqual([]);
    } finally {
      await mcp.close();
    }
  });
});

describe("the stderr tail, cut at every position of the token", () => {
  const scrub = new Scrubber([TOKEN]);

  it("a token split across two chunks at any point is scrubbed whole", () => {
    for (let at = 1; at < TOKEN.length; at++) {
      const tail = new StderrTail(scrub, [TOKEN]);
      tail.push(`token ${TOKEN.slice(0, at)}`);
      tail.push(`${TOKEN.slice(at)} rejected\n`);
      expect(tail.summary()).toBe("token *** rejected");
    }
  });

  it("wherever the window or the quote starts, no piece of the token is left", () => {
    for (let after = 1; after <= TOKEN.length + 2; after++) {
      for (const window of [REASON_TAIL_CHARS, 2000 + TOKEN.length]) {
        const tail = new StderrTail(scrub, [TOKEN]);
        tail.push(
          `${"b".repeat(500)}\nauth failed for token ${TOKEN}${"a".repeat(window - after)}`,
        );
        expect(leaked(tail.summary())).toEqual([]);
      }
    }
  });

  it("a token the server had not finished writing is redacted at the end", () => {
    for (let at = 4; at < TOKEN.length; at++) {
      const tail = new StderrTail(scrub, [TOKEN]);
      tail.push(`auth failed for token ${TOKEN.slice(0, at)}`);
      expect(tail.summary()).toBe("auth failed for token ***");
    }
  });

  it("a token one process had not finished writing is redacted before the next one's output", () => {
    const tail = new StderrTail(scrub, [TOKEN]);
    tail.push(`auth failed for token ${TOKEN.slice(0, 20)}`);
    tail.seal();
    tail.push("started again\n");
    expect(tail.summary()).toBe("auth failed for token *** | started again");
  });

  it("the quote starts at a line and ends with the last one", () => {
    const tail = new StderrTail(scrub, [TOKEN]);
    tail.push(`first\n${"m".repeat(200)}\n${"l".repeat(150)}\n`);
    expect(tail.summary()).toBe(`…${"l".repeat(150)}`);
    expect(tail.summary().length).toBeLessThanOrEqual(REASON_TAIL_CHARS);
  });
});

describe("redacting a fragment of a secret at a cut", () => {
  it("redactStart replaces a start that is the end of a secret (4 characters or more)", () => {
    expect(redactStart(`${TOKEN.slice(-4)} rest`, [TOKEN])).toBe("*** rest");
    expect(redactStart(`${TOKEN.slice(-20)} rest`, [TOKEN])).toBe("*** rest");
    expect(redactStart(`${TOKEN.slice(-3)} rest`, [TOKEN])).toBe(`${TOKEN.slice(-3)} rest`);
    expect(redactStart("unrelated text", [TOKEN])).toBe("unrelated text");
    expect(redactStart("", [TOKEN])).toBe("");
  });

  it("redactEnd replaces an end that is the start of a secret (4 characters or more)", () => {
    expect(redactEnd(`rest ${TOKEN.slice(0, 4)}`, [TOKEN])).toBe("rest ***");
    expect(redactEnd(`rest ${TOKEN.slice(0, 30)}`, [TOKEN])).toBe("rest ***");
    expect(redactEnd(`rest ${TOKEN.slice(0, 3)}`, [TOKEN])).toBe(`rest ${TOKEN.slice(0, 3)}`);
    expect(redactEnd("unrelated text", [TOKEN])).toBe("unrelated text");
    // A JSON log line cut while it wrote the token escaped.
    const escaped = `{"token":"${TOKEN.slice(0, 3)}\\u00`;
    expect(redactEnd(escaped, [TOKEN])).toBe('{"token":"***');
  });
});
