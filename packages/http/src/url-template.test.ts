// Placeholders against a real server: whatever the model passes, the request the server gets has
// the template's path structure (or nothing is sent at all).
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { httpTool } from "./index.js";
import { startServer, type TestServer } from "./test-server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  server.requests.length = 0;
});

/** Values a model could pass to climb out of, split or merge a path segment. */
const HOSTILE = [
  ".",
  "..",
  "...",
  "../..",
  "..\\..",
  "..%2f..",
  "%2e",
  "%2e%2e",
  "%2E%2e",
  ".%2e",
  "%2e.",
  "%252e%252e",
  "..%00",
  "..;",
  "..?",
  "..#",
  "a/../../..",
  "/",
  "//",
  "\\",
  "?x=1",
  "#frag",
  " ",
  "..\t",
  "\u2025",
  "\uff0e\uff0e",
];

describe("a placeholder value never changes the path's structure", () => {
  it("each hostile value, in each position: refused, or received as one literal segment", async () => {
    const tool = httpTool({
      name: "delete_comment",
      description: "d",
      method: "DELETE",
      url: `${server.base}/repos/{owner}/{repo}/comments/{id}`,
    });
    let sent = 0;
    for (const value of HOSTILE) {
      for (const position of ["owner", "repo", "id"] as const) {
        const args = { owner: "o", repo: "r", id: "1", [position]: value };
        const before = server.requests.length;
        const result = await tool.execute(args);
        if (server.requests.length === before) {
          expect(result.isError).toBe(true);
          continue;
        }
        sent++;
        const received = server.requests.at(-1);
        expect(received?.method).toBe("DELETE");
        // The path the server actually got: five segments, the value decoded back whole.
        const segments = (received?.url ?? "").split("/");
        expect(segments).toHaveLength(6);
        expect(segments[1]).toBe("repos");
        expect(segments[4]).toBe("comments");
        const index = { owner: 2, repo: 3, id: 5 }[position];
        expect(decodeURIComponent(segments[index] ?? "")).toBe(value);
        expect(received?.url).not.toContain("?");
      }
    }
    // Most are sent, encoded; only the dot segments and empty values are refused.
    expect(sent).toBeGreaterThan(HOSTILE.length);
  });

  it('".." and "." (and their encoded forms) are refused with the argument named', async () => {
    const tool = httpTool({
      name: "t",
      description: "d",
      method: "DELETE",
      url: `${server.base}/repos/{owner}/{repo}/comments/{id}`,
    });
    expect(await tool.execute({ owner: "..", repo: "r", id: "1" })).toEqual({
      output:
        'argument "owner" for the URL makes the path segment "..", which would change the URL\'s path; "." and ".." are refused',
      isError: true,
    });
    expect((await tool.execute({ owner: "o", repo: ".", id: "1" })).output).toContain(
      'argument "repo"',
    );
    // "%2e%2e" is sent as the literal text "%2e%2e" (its % encoded), which is not a dot segment.
    await tool.execute({ owner: "%2e%2e", repo: "r", id: "1" });
    expect(server.requests.map((request) => request.url)).toEqual([
      "/repos/%252e%252e/r/comments/1",
    ]);
  });

  it("a segment made of template text and a value cannot become a dot segment either", async () => {
    const tool = httpTool({ name: "t", description: "d", url: `${server.base}/files/.{ext}/x` });
    expect((await tool.execute({ ext: "." })).output).toContain('path segment ".."');
    const pair = httpTool({ name: "t", description: "d", url: `${server.base}/a/{x}{y}/b` });
    expect((await pair.execute({ x: ".", y: "." })).output).toContain('"x", "y"');
    const encoded = httpTool({ name: "t", description: "d", url: `${server.base}/a/%2e{x}/b` });
    expect((await encoded.execute({ x: "." })).isError).toBe(true);
    expect(server.requests).toHaveLength(0);
    await pair.execute({ x: ".", y: "x" });
    expect(server.requests.map((request) => request.url)).toEqual(["/a/.x/b"]);
  });

  it("an empty value in the path is refused; in the query it is sent", async () => {
    const tool = httpTool({
      name: "t",
      description: "d",
      url: `${server.base}/u/{id}/p?tag={tag}`,
    });
    expect(await tool.execute({ id: "", tag: "x" })).toEqual({
      output:
        'argument "id" for the URL placeholder {id} must not be empty (it would change the URL\'s path)',
      isError: true,
    });
    await tool.execute({ id: "1", tag: "" });
    expect(server.requests.map((request) => request.url)).toEqual(["/u/1/p?tag="]);
  });

  it("a placeholder in the query string cannot add or replace a key", async () => {
    const tool = httpTool({
      name: "t",
      description: "d",
      url: `${server.base}/search?q={q}&page=1`,
    });
    for (const q of ["a&page=999", "x=y", "a#b", "a+b c", "it's", "%26page%3D2", "a\nb"]) {
      await tool.execute({ q });
      const received = new URL(server.requests.at(-1)?.url ?? "", "http://x");
      expect([...received.searchParams.keys()]).toEqual(["q", "page"]);
      expect(received.searchParams.get("q")).toBe(q);
      expect(received.searchParams.get("page")).toBe("1");
    }
  });

  it("a placeholder can name a query key", async () => {
    const tool = httpTool({ name: "t", description: "d", url: `${server.base}/s?{field}=1` });
    await tool.execute({ field: "a&b=2" });
    const received = new URL(server.requests.at(-1)?.url ?? "", "http://x");
    expect([...received.searchParams]).toEqual([["a&b=2", "1"]]);
  });

  it("a placeholder in the host takes only letters, digits and inner hyphens", async () => {
    const port = new URL(server.base).port;
    const tool = httpTool({ name: "t", description: "d", url: `http://{host}:${port}/h` });
    for (const host of [
      "127.0.0.1",
      "evil.test",
      "evil.test#",
      "a@127.0.0.1",
      "localhost:1",
      "localhost/x",
      "localhost%2f",
      "-localhost",
      "",
      "loc alhost",
      "x".repeat(64),
    ]) {
      const result = await tool.execute({ host });
      expect(result.output).toMatch(/is part of the host|missing argument/);
    }
    expect(server.requests).toHaveLength(0);
    // A plain label is used, and reaches the server as its host.
    expect((await tool.execute({ host: "LocalHost" })).isError).toBe(false);
    expect(server.requests.at(-1)?.headers.host).toBe(`localhost:${port}`);
  });

  it("a placeholder in the port is refused when the tool is declared", () => {
    expect(() =>
      httpTool({ name: "t", description: "d", url: "http://127.0.0.1:{port}/" }),
    ).toThrow(/not a valid URL template/);
  });
});

describe("a placeholder used more than once", () => {
  it("is filled everywhere, and not sent again", async () => {
    const tool = httpTool({
      name: "t",
      description: "d",
      url: `${server.base}/a/{id}/b/{id}?x={id}`,
      query: ["other"],
    });
    const result = await tool.execute({ id: "7 x", other: "y" });
    expect(result.isError).toBe(false);
    expect(server.requests.map((request) => request.url)).toEqual([
      "/a/7%20x/b/7%20x?x=7%20x&other=y",
    ]);
  });

  it("is refused once, not once per occurrence, when missing or hostile", async () => {
    const tool = httpTool({ name: "t", description: "d", url: `${server.base}/a/{id}/b/{id}` });
    expect((await tool.execute({})).output).toBe(
      'missing argument "id" for the URL placeholder {id}',
    );
    expect((await tool.execute({ id: ".." })).isError).toBe(true);
    expect(server.requests).toHaveLength(0);
  });

  it("an inherited property is not an argument", async () => {
    const tool = httpTool({ name: "t", description: "d", url: `${server.base}/a/{constructor}` });
    expect((await tool.execute({})).output).toBe(
      'missing argument "constructor" for the URL placeholder {constructor}',
    );
    expect(server.requests).toHaveLength(0);
  });
});
