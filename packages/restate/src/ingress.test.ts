// The ingress helpers against a stand-in ingress (plain node:http on 127.0.0.1): what a failed
// response's error may quote, how much of a huge response is read, and which ids never leave.
import http from "node:http";
import { MAX_STORE_ID_CHARS } from "@toolnexus/core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { answerRun, attachRun, submitRun, waitingRequests } from "./ingress.js";

const TOKEN = "rst-ingress-token-7f3a9c";

/** How the stand-in answers the next requests. */
let answer: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) =>
  res.end();
let requests = 0;
let server: http.Server;
let url: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    requests++;
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterEach(() => {
  requests = 0;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Every helper's call with `options`, by name. */
function everyHelper(options: { headers: Record<string, string> }) {
  return [
    ["submitRun", () => submitRun(url, "r1", { prompt: "hi" }, options)],
    ["waitingRequests", () => waitingRequests(url, "r1", options)],
    ["answerRun", () => answerRun(url, "r1", { id: "q1", ok: true }, options)],
    ["attachRun", () => attachRun(url, "r1", options)],
  ] as const;
}

/** The error `call` rejects with. */
async function errorOf(call: () => Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await call();
  } catch (thrown) {
    return thrown as Error & { code?: string };
  }
  throw new Error("it resolved");
}

describe("an ingress error never quotes the caller's header values", () => {
  it("a proxy's 401 echoing the Authorization header, in JSON: every helper", async () => {
    answer = (req, res) => {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ message: `invalid credentials: ${req.headers.authorization}` }));
    };
    for (const [name, call] of everyHelper({ headers: { authorization: `Bearer ${TOKEN}` } })) {
      const error = await errorOf(call);
      expect(error.code, name).toBe("ingress_failed");
      expect(error.message, name).toMatch(
        /^Restate ingress 401 on \/.+: invalid credentials: \*\*\*$/,
      );
      expect(error.message, name).not.toContain(TOKEN);
    }
  });

  it("the bare token, JSON-escaped, and a Basic credential's password", async () => {
    const escaped = [...TOKEN].map(
      (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );
    answer = (req, res) => {
      res.writeHead(403, { "content-type": "application/json" });
      const basic = String(req.headers.authorization).startsWith("Basic ");
      res.end(
        basic
          ? `{"message":"user admin, password ${"hunter2-s3cret"} refused"}`
          : `{"message":"token ${escaped.join("")} refused","token":"${TOKEN}"}`,
      );
    };
    const bearer = await errorOf(() =>
      waitingRequests(url, "r1", { headers: { authorization: `Bearer ${TOKEN}` } }),
    );
    expect(bearer.message).toContain("token *** refused");
    expect(bearer.message).not.toContain(TOKEN);
    const basic = Buffer.from("admin:hunter2-s3cret").toString("base64");
    const error = await errorOf(() =>
      waitingRequests(url, "r1", { headers: { authorization: `Basic ${basic}` } }),
    );
    expect(error.message).toContain("password *** refused");
    expect(error.message).not.toContain("hunter2");
  });

  it("any configured header's value, also where the quote is cut (no part of it is left)", async () => {
    const apiKey = "key-0123456789abcdef";
    answer = (_req, res) => {
      res.writeHead(502, { "content-type": "text/plain" });
      // The key straddles the 500th character, where the quote is cut.
      res.end(`${"x".repeat(490)}${apiKey} and ${TOKEN} ${"y".repeat(1000)}`);
    };
    const error = await errorOf(() =>
      attachRun(url, "r1", { headers: { "x-api-key": apiKey, "x-tenant": `Bearer ${TOKEN}` } }),
    );
    expect(error.code).toBe("ingress_failed");
    // 500 characters of the scrubbed text: the key's place, then the cut.
    expect(error.message).toMatch(/: x{490}\*\*\* and \*\*…$/);
    expect(error.message).not.toContain("key-01");
    expect(error.message).not.toContain(TOKEN);
  });
});

describe("a response past 32 MiB", () => {
  it("is read no further than the cap: the rest is cancelled, the call fails", async () => {
    const offered = 96 * 1024 * 1024;
    let sent = 0;
    let closed: () => void = () => {};
    const connectionClosed = new Promise<void>((resolve) => {
      closed = resolve;
    });
    answer = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const chunk = Buffer.alloc(1024 * 1024, 0x61);
      let stopped = false;
      res.on("close", () => {
        stopped = true;
        closed();
      });
      const pump = () => {
        while (!stopped && sent < offered) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        if (!stopped) res.end();
      };
      pump();
    };
    const error = await errorOf(() => waitingRequests(url, "r1"));
    expect(error.code).toBe("ingress_failed");
    expect(error.message).toBe("the ingress answered more than 33554432 bytes");
    await connectionClosed;
    // The client stopped reading at the cap (32 MiB, plus what the sockets buffered): the
    // server never got to send the rest.
    expect(sent).toBeGreaterThan(32 * 1024 * 1024);
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  });

  it("counts bytes, not characters: 20 MiB of three-byte characters is too much", async () => {
    const chunk = Buffer.from("€".repeat(1024 * 1024));
    answer = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      for (let i = 0; i < 20; i++) res.write(chunk);
      res.end();
    };
    // 20 Mi characters (under the cap as characters), 60 MiB as bytes.
    const error = await errorOf(() => attachRun(url, "r1"));
    expect(error.message).toBe("the ingress answered more than 33554432 bytes");
  });
});

describe("ids are checked before anything is sent", () => {
  const long = "r".repeat(MAX_STORE_ID_CHARS + 1);
  it("a run id, a session id or an answer id no run store keeps: invalid_id, no request", async () => {
    answer = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end("[]");
    };
    const calls: [string, () => Promise<unknown>][] = [
      ["submitRun long runId", () => submitRun(url, long, { prompt: "hi" })],
      ["submitRun NUL runId", () => submitRun(url, "a\u0000b", { prompt: "hi" })],
      ["submitRun long sessionId", () => submitRun(url, "r1", { prompt: "hi", sessionId: long })],
      ["attachRun", () => attachRun(url, long)],
      ["waitingRequests", () => waitingRequests(url, "a\ud800b")],
      ["answerRun runId", () => answerRun(url, long, { id: "q1", ok: true })],
      ["answerRun answer id", () => answerRun(url, "r1", { id: "i".repeat(100_000), ok: true })],
      ["answerRun NUL answer id", () => answerRun(url, "r1", { id: "a\u0000b", ok: true })],
    ];
    for (const [name, call] of calls) {
      const error = await errorOf(call);
      expect(error.code, name).toBe("invalid_id");
      expect(error.name, name).toBe("InvalidIdError");
    }
    expect(requests).toBe(0);
    // An id within the limits goes through.
    expect(await waitingRequests(url, "r".repeat(MAX_STORE_ID_CHARS))).toEqual([]);
    expect(requests).toBe(1);
  });

  it("through a restate-sdk-clients connection too", async () => {
    let used = 0;
    const connection = {
      workflowClient: () => {
        used++;
        return { requests: async () => [], answer: async () => ({}) };
      },
    };
    await expect(waitingRequests(connection, long)).rejects.toMatchObject({ code: "invalid_id" });
    await expect(
      answerRun(connection, "r1", { id: "i".repeat(MAX_STORE_ID_CHARS + 1), ok: true }),
    ).rejects.toMatchObject({ code: "invalid_id" });
    expect(used).toBe(0);
  });
});
