// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" in a header is the contract's env syntax, not a mistaken template.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_HTTP_TIMEOUT, httpTool } from "./index.js";
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

const SECRET = "tn-secret-9f8e7d6c5b4a";
const last = () => server.requests.at(-1);

describe("the declaration", () => {
  it("source http, a sanitized name, the default 30 s budget", () => {
    const tool = httpTool({ name: "get weather.v2", description: "d", url: "https://x.test/" });
    expect(tool.name).toBe("get_weather_v2");
    expect(tool.source).toBe("http");
    expect(tool.timeoutMs).toBe(DEFAULT_HTTP_TIMEOUT);
    expect(DEFAULT_HTTP_TIMEOUT).toBe(30_000);
    expect(
      httpTool({ name: "t", description: "d", url: "https://x.test/", timeout: 500 }).timeoutMs,
    ).toBe(500);
  });

  it("the input schema: as declared, else one string per placeholder (required) and query name", () => {
    const declared = { type: "object", properties: { q: { type: "string" } } };
    expect(
      httpTool({ name: "t", description: "d", url: "https://x.test/", inputSchema: declared })
        .inputSchema,
    ).toBe(declared);
    expect(
      JSON.stringify(httpTool({ name: "t", description: "d", url: "https://x.test/" }).inputSchema),
    ).toBe('{"type":"object","properties":{},"additionalProperties":false}');
    expect(
      JSON.stringify(
        httpTool({
          name: "t",
          description: "d",
          url: "https://x.test/{owner}/{repo}/issues/{owner}",
          query: ["state", "repo"],
        }).inputSchema,
      ),
    ).toBe(
      '{"type":"object","properties":{"owner":{"type":"string"},"repo":{"type":"string"},"state":{"type":"string"}},"required":["owner","repo"],"additionalProperties":false}',
    );
  });

  it("refuses a bad declaration with a clear message", () => {
    const base = { name: "t", description: "d", url: "https://x.test/" };
    expect(() => httpTool({ ...base, name: "" })).toThrow(/name must be a non-empty string/);
    expect(() => httpTool({ ...base, url: "/relative" })).toThrow(/absolute http/);
    expect(() => httpTool({ ...base, method: "GE T" })).toThrow(/HTTP method/);
    expect(() => httpTool({ ...base, timeout: 0 })).toThrow(/timeout/);
    expect(() => httpTool({ ...base, body: "xml" as never })).toThrow(/json, form, raw/);
  });
});

describe("the request", () => {
  it("fills placeholders URL-encoded and sends the other GET args as the query string", async () => {
    const tool = httpTool({
      name: "posts",
      description: "d",
      url: `${server.base}/users/{id}/posts/{slug}`,
      query: ["q", "tags", "skip"],
    });
    const result = await tool.execute({
      id: "a b/c?d#e&f=é",
      slug: 42,
      q: "x y&z",
      tags: ["p", "q"],
      skip: null,
    });
    expect(result.isError).toBe(false);
    expect(last()).toMatchObject({
      method: "GET",
      url: "/users/a%20b%2Fc%3Fd%23e%26f%3D%C3%A9/posts/42?q=x+y%26z&tags=p&tags=q",
      body: "",
    });
  });

  it("appends to a query string already in the template", async () => {
    const tool = httpTool({
      name: "t",
      description: "d",
      url: `${server.base}/s?v=1&id={id}`,
      query: ["page"],
    });
    await tool.execute({ id: "7", page: 2 });
    expect(last()?.url).toBe("/s?v=1&id=7&page=2");
    // Before the template's fragment, which is never sent.
    const fragment = httpTool({
      name: "t",
      description: "d",
      url: `${server.base}/f#a?b`,
      query: ["page"],
    });
    await fragment.execute({ page: 2 });
    expect(last()?.url).toBe("/f?page=2");
  });

  it("POST: query names go to the query string, the rest is a JSON body", async () => {
    const tool = httpTool({
      name: "create",
      description: "d",
      method: "post",
      url: `${server.base}/repos/{repo}/issues`,
      query: ["dryRun"],
      inputSchema: {
        type: "object",
        properties: {
          repo: { type: "string" },
          dryRun: { type: "boolean" },
          title: { type: "string" },
          labels: { type: "array", items: { type: "string" } },
        },
        required: ["repo", "title"],
        additionalProperties: false,
      },
    });
    const result = await tool.execute({
      repo: "toolnexus",
      dryRun: true,
      title: "Bug",
      labels: ["a"],
    });
    expect(last()).toMatchObject({
      method: "POST",
      url: "/repos/toolnexus/issues?dryRun=true",
      body: '{"title":"Bug","labels":["a"]}',
    });
    expect(last()?.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(result.output)).toEqual({
      method: "POST",
      url: "/repos/toolnexus/issues?dryRun=true",
      body: '{"title":"Bug","labels":["a"]}',
    });
    expect(result.metadata).toEqual({ status: 200 });
  });

  it("form and raw bodies; a declared Content-Type is kept", async () => {
    const form = httpTool({
      name: "f",
      description: "d",
      method: "PUT",
      url: `${server.base}/f`,
      body: "form",
      inputSchema: {
        type: "object",
        properties: { a: { type: "string" }, b: { type: "array", items: { type: "string" } } },
      },
    });
    await form.execute({ a: "1 2", b: ["x", "y"] });
    expect(last()).toMatchObject({ method: "PUT", body: "a=1+2&b=x&b=y" });
    expect(last()?.headers["content-type"]).toBe("application/x-www-form-urlencoded");

    const raw = httpTool({
      name: "r",
      description: "d",
      method: "POST",
      url: `${server.base}/r`,
      body: "raw",
      inputSchema: { type: "object", properties: { body: { type: "string" } } },
      headers: { "content-type": "text/csv" },
    });
    await raw.execute({ body: "a,b\n1,2" });
    expect(last()).toMatchObject({ body: "a,b\n1,2" });
    expect(last()?.headers["content-type"]).toBe("text/csv");
  });

  it("a method with a body but no arguments left sends no body", async () => {
    const tool = httpTool({
      name: "d",
      description: "d",
      method: "DELETE",
      url: `${server.base}/x/{id}`,
    });
    await tool.execute({ id: "1" });
    expect(last()).toMatchObject({ method: "DELETE", url: "/x/1", body: "" });
    expect(last()?.headers["content-type"]).toBeUndefined();
  });

  it("a missing placeholder argument is an error and nothing is sent", async () => {
    const tool = httpTool({ name: "t", description: "d", url: `${server.base}/u/{id}/{sub}` });
    expect(await tool.execute({ sub: "x" })).toEqual({
      output: 'missing argument "id" for the URL placeholder {id}',
      isError: true,
    });
    expect((await tool.execute({ id: { a: 1 }, sub: "x" })).output).toBe(
      'argument "id" for the URL placeholder {id} must be a string or number',
    );
    expect((await tool.execute({ id: "\ud800", sub: "x" })).output).toBe(
      "invalid arguments for t: URI malformed",
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe("model input never widens what the tool may reach", () => {
  it("an argument the schema does not declare is refused, for GET, and nothing is sent", async () => {
    const docs = httpTool({
      name: "docs",
      description: "d",
      url: `${server.base}/docs/{id}?scope=read`,
    });
    expect(await docs.execute({ id: "42", scope: "admin", delete: "true" })).toEqual({
      output:
        'arguments "scope", "delete" are not declared by the tool\'s input schema; nothing was sent',
      isError: true,
    });
    expect(await docs.execute({ id: "42", delete: null })).toEqual({
      output: 'argument "delete" is not declared by the tool\'s input schema; nothing was sent',
      isError: true,
    });
    expect(server.requests).toHaveLength(0);
    await docs.execute({ id: "42" });
    expect(server.requests.map((request) => request.url)).toEqual(["/docs/42?scope=read"]);
  });

  it("and for a body: no field the schema does not declare", async () => {
    const create = httpTool({
      name: "create",
      description: "d",
      method: "POST",
      url: `${server.base}/users`,
      inputSchema: { type: "object", properties: { name: { type: "string" } } },
    });
    expect((await create.execute({ name: "ada", isAdmin: true })).output).toBe(
      'argument "isAdmin" is not declared by the tool\'s input schema; nothing was sent',
    );
    const noSchema = httpTool({
      name: "t",
      description: "d",
      method: "PUT",
      url: `${server.base}/x/{id}`,
      body: "form",
    });
    expect((await noSchema.execute({ id: "1", role: "admin" })).isError).toBe(true);
    expect(server.requests).toHaveLength(0);
    await create.execute({ name: "ada" });
    expect(last()).toMatchObject({ method: "POST", url: "/users", body: '{"name":"ada"}' });
  });

  it("placeholders and `query` names are declared; so is any name the schema explicitly allows", async () => {
    const schema = { type: "object", properties: { q: { type: "string" } } };
    const tool = httpTool({
      name: "t",
      description: "d",
      url: `${server.base}/s/{id}`,
      query: ["page"],
      inputSchema: schema,
    });
    await tool.execute({ id: "1", page: 2, q: "x" });
    expect(last()?.url).toBe("/s/1?page=2&q=x");
    const open = httpTool({
      name: "t",
      description: "d",
      url: `${server.base}/o`,
      inputSchema: { type: "object", additionalProperties: true },
    });
    await open.execute({ anything: "y" });
    expect(last()?.url).toBe("/o?anything=y");
    const patterned = httpTool({
      name: "t",
      description: "d",
      url: `${server.base}/p`,
      inputSchema: { type: "object", patternProperties: { "^x-": { type: "string" } } },
    });
    await patterned.execute({ "x-a": "1" });
    expect(last()?.url).toBe("/p?x-a=1");
    expect((await patterned.execute({ "y-a": "1" })).isError).toBe(true);
    // Own keys only: nothing inherited counts as declared.
    expect(
      (await tool.execute(JSON.parse('{"id":"1","__proto__":"x","constructor":"y"}'))).output,
    ).toBe(
      'arguments "__proto__", "constructor" are not declared by the tool\'s input schema; nothing was sent',
    );
    expect(server.requests).toHaveLength(3);
  });

  it("a declared argument never sets a query key the template fixes, in any case", async () => {
    const declared = httpTool({
      name: "docs",
      description: "d",
      url: `${server.base}/docs/{id}?scope=read&v=1#top`,
      query: ["scope", "Scope", "V", "page"],
    });
    expect(await declared.execute({ id: "42", scope: "admin" })).toEqual({
      output:
        'argument "scope" would set a query key that the URL template already fixes; nothing was sent',
      isError: true,
    });
    expect((await declared.execute({ id: "42", Scope: "admin", V: ["2"] })).output).toBe(
      'arguments "Scope", "V" would set a query key that the URL template already fixes; nothing was sent',
    );
    const schema = httpTool({
      name: "docs",
      description: "d",
      url: `${server.base}/docs?sc%6Fpe=read`,
      inputSchema: { type: "object", properties: { scope: { type: "string" } } },
    });
    expect((await schema.execute({ scope: "admin" })).isError).toBe(true);
    expect(server.requests).toHaveLength(0);
    // A key the template does not have, or a null value (left out), is fine.
    await declared.execute({ id: "42", page: 2, scope: null });
    expect(last()?.url).toBe("/docs/42?scope=read&v=1&page=2");
    // For a method with a body, such an argument goes to the body, not the query string.
    const post = httpTool({
      name: "t",
      description: "d",
      method: "POST",
      url: `${server.base}/docs?scope=read`,
      inputSchema: { type: "object", properties: { scope: { type: "string" } } },
    });
    await post.execute({ scope: "admin" });
    expect(last()).toMatchObject({ url: "/docs?scope=read", body: '{"scope":"admin"}' });
  });

  it("the error quotes a long name by its start, and lists at most ten", async () => {
    const tool = httpTool({ name: "t", description: "d", url: `${server.base}/x` });
    const huge = "A".repeat(5 * 1024 * 1024);
    expect((await tool.execute({ [huge]: "1" })).output).toBe(
      `argument "${"A".repeat(40)}"… (5242880 characters) is not declared by the tool's input schema; nothing was sent`,
    );
    const many = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i]));
    const output = (await tool.execute(many)).output;
    expect(output).toBe(
      `arguments ${Array.from({ length: 10 }, (_, i) => `"k${i}"`).join(", ")} and 4990 more are not declared by the tool's input schema; nothing was sent`,
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe("headers and ${ENV}", () => {
  it("expands ${VAR} from the environment at each call", async () => {
    process.env.TN_HTTP_TEST_TOKEN = SECRET;
    try {
      const tool = httpTool({
        name: "t",
        description: "d",
        url: `${server.base}/h`,
        headers: { Authorization: "Bearer ${TN_HTTP_TEST_TOKEN}", "X-Static": "plain" },
      });
      const result = await tool.execute({});
      expect(last()?.headers.authorization).toBe(`Bearer ${SECRET}`);
      expect(last()?.headers["x-static"]).toBe("plain");
      expect(JSON.stringify(result)).not.toContain(SECRET);

      process.env.TN_HTTP_TEST_TOKEN = "rotated-token";
      await tool.execute({});
      expect(last()?.headers.authorization).toBe("Bearer rotated-token");
    } finally {
      delete process.env.TN_HTTP_TEST_TOKEN;
    }
  });

  it("an `env` option replaces process.env", async () => {
    const tool = httpTool({
      name: "t",
      description: "d",
      url: `${server.base}/h`,
      headers: { "X-Key": "${KEY}-${REGION}" },
      env: { KEY: "k1", REGION: "eu" },
    });
    await tool.execute({});
    expect(last()?.headers["x-key"]).toBe("k1-eu");
  });

  it("a secret never appears in an error result", async () => {
    const env = { TOKEN: SECRET, BAD: `${SECRET}\r\nX-Injected: 1` };
    // A careless server echoes the token in its error body.
    const echo = httpTool({
      name: "t",
      description: "d",
      url: `${server.base}/echo-auth`,
      headers: { Authorization: "Bearer ${TOKEN}" },
      env,
    });
    expect(await echo.execute({})).toEqual({
      output: "HTTP 401: bad token: Bearer [redacted]",
      isError: true,
      metadata: { status: 401 },
    });
    // A refused connection.
    const closed = await startServer();
    await closed.close();
    const refused = httpTool({
      name: "t",
      description: "d",
      url: `${closed.base}/x`,
      headers: { Authorization: "Bearer ${TOKEN}" },
      env,
    });
    const failed = await refused.execute({});
    expect(failed.isError).toBe(true);
    expect(failed.output).toMatch(/^HTTP request failed: fetch failed \(.*ECONNREFUSED/);
    // A value that would inject a header.
    const injected = httpTool({
      name: "t",
      description: "d",
      url: `${server.base}/x`,
      headers: { Authorization: "${BAD}" },
      env,
    });
    expect(await injected.execute({})).toEqual({
      output: 'the header "Authorization" has an invalid value (a NUL or line break)',
      isError: true,
    });
    // An unset variable names the variable, not a value.
    const unset = httpTool({
      name: "t",
      description: "d",
      url: `${server.base}/x`,
      headers: { Authorization: "Bearer ${NOT_SET_ANYWHERE}" },
      env,
    });
    expect(await unset.execute({})).toEqual({
      output:
        'the environment variable NOT_SET_ANYWHERE (used by the header "Authorization") is not set',
      isError: true,
    });
    expect(JSON.stringify(failed)).not.toContain(SECRET);
    expect(server.requests.map((request) => request.url)).toEqual(["/echo-auth"]);
  });
});

describe("the response", () => {
  it("non-2xx is the error `HTTP <status>: <body>`", async () => {
    const tool = httpTool({ name: "t", description: "d", url: `${server.base}/status/{code}` });
    expect(await tool.execute({ code: 404 })).toEqual({
      output: "HTTP 404: nope 404",
      isError: true,
      metadata: { status: 404 },
    });
    expect((await tool.execute({ code: 503 })).output).toBe("HTTP 503: nope 503");
    expect(await tool.execute({ code: 204 })).toEqual({
      output: "",
      isError: false,
      metadata: { status: 204 },
    });
  });

  it("resultMode: text (default), json, status+text", async () => {
    const url = `${server.base}/json`;
    expect((await httpTool({ name: "t", description: "d", url }).execute({})).output).toBe(
      '{ "a": [1, 2] }',
    );
    expect(
      (await httpTool({ name: "t", description: "d", url, resultMode: "json" }).execute({})).output,
    ).toBe('{"a":[1,2]}');
    expect(
      (await httpTool({ name: "t", description: "d", url, resultMode: "status+text" }).execute({}))
        .output,
    ).toBe('200\n{ "a": [1, 2] }');
  });
});

describe("time limits and cancellation stop the request", () => {
  const slow = () => httpTool({ name: "slow", description: "d", url: `${server.base}/slow` });
  // A timer may end the call before its request reaches a busy machine's server: then none was
  // sent. Either way, once every connection is closed, no request since `before` was answered.
  const expectAbortedOrUnsent = async (before: number) => {
    await server.settled();
    const sent = server.requests.slice(before);
    expect(sent.map((request) => [request.url, request.aborted])).toEqual(
      sent.map(() => ["/slow", true]),
    );
  };

  it("ctx.timeout", async () => {
    const before = server.requests.length;
    const result = await slow().execute({}, { timeout: 150 });
    expect(result).toEqual({ output: "HTTP request timed out after 150ms", isError: true });
    await expectAbortedOrUnsent(before);
  });

  it("the declared timeout when the call sets none", async () => {
    const before = server.requests.length;
    const tool = httpTool({
      name: "t",
      description: "d",
      url: `${server.base}/slow`,
      timeout: 120,
    });
    expect((await tool.execute({})).output).toBe("HTTP request timed out after 120ms");
    await expectAbortedOrUnsent(before);
  });

  it("with a signal too, ctx.timeout is the signal's job; the tool's timer is a backstop", async () => {
    const before = server.requests.length;
    const quiet = new AbortController(); // a caller that promised a budget but never aborts
    const started = performance.now();
    const result = await slow().execute({}, { timeout: 100, signal: quiet.signal });
    expect(result.output).toBe("HTTP request timed out after 100ms");
    // A lower bound only (never flaky on a busy machine): the timer waited past the budget.
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
    await expectAbortedOrUnsent(before);
  });

  it("ctx.signal", async () => {
    const controller = new AbortController();
    const arrived = server.slowArrived();
    const closed = server.slowClosed();
    const pending = slow().execute({}, { signal: controller.signal });
    await arrived;
    controller.abort(new Error("run cancelled"));
    expect(await pending).toEqual({
      output: "HTTP request cancelled: run cancelled",
      isError: true,
    });
    expect((await closed).aborted).toBe(true);
  });

  it("a signal aborted by a budget reads as a timeout; an already aborted one sends nothing", async () => {
    const controller = new AbortController();
    const arrived = server.slowArrived();
    const pending = slow().execute({}, { signal: controller.signal });
    await arrived;
    controller.abort(new DOMException("timed out after 40ms", "TimeoutError"));
    expect((await pending).output).toBe("HTTP request timed out: timed out after 40ms");

    const count = server.requests.length;
    expect(
      (await slow().execute({}, { signal: AbortSignal.abort(new Error("too late")) })).output,
    ).toBe("HTTP request cancelled: too late");
    expect(server.requests).toHaveLength(count);
  });
});
