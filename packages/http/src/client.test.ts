// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${VAR}" in a header is the contract's env syntax, not a mistaken template.
// The HTTP tool through the real loop, against a real local server: the model's call becomes a
// request, the response becomes the tool result, and the loop's budget stops a slow request.
import { createClient } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpTool } from "./index.js";
import { startServer, type TestServer } from "./test-server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.close();
});

const SECRET = "tn-client-secret-0a1b2c3d";

describe("through createClient", () => {
  it("runs the request, feeds back the body or the HTTP error, and never shows the secret", async () => {
    const lookup = httpTool({
      name: "lookup",
      description: "Look a user up",
      url: `${server.base}/users/{id}`,
      query: ["fields"],
      headers: { Authorization: "Bearer ${TOKEN}" },
      env: { TOKEN: SECRET },
    });
    const denied = httpTool({
      name: "denied",
      description: "Always 401",
      url: `${server.base}/echo-auth`,
      headers: { Authorization: "Bearer ${TOKEN}" },
      env: { TOKEN: SECRET },
    });
    const model = scriptedModel([
      {
        toolCalls: [
          { id: "call_1", name: "lookup", arguments: { id: "ada lovelace", fields: "name" } },
          { id: "call_2", name: "denied", arguments: {} },
        ],
      },
      { content: "Done." },
    ]);
    const events: unknown[] = [];
    const client = createClient({
      model,
      tools: [lookup, denied],
      onEvent: (event) => events.push(event),
    });
    const result = await client.run("Who is user ada lovelace?");
    expect(result.status).toBe("done");
    expect(model.requests[0]?.tools.map((tool) => [tool.name, tool.inputSchema])).toEqual([
      [
        "lookup",
        {
          type: "object",
          properties: { id: { type: "string" }, fields: { type: "string" } },
          required: ["id"],
          additionalProperties: false,
        },
      ],
      ["denied", { type: "object", properties: {}, additionalProperties: false }],
    ]);
    const toolMessages = model.requests[1]?.messages.filter((message) => message.role === "tool");
    expect(toolMessages).toEqual([
      {
        role: "tool",
        callId: "call_1",
        name: "lookup",
        content: JSON.stringify({
          method: "GET",
          url: "/users/ada%20lovelace?fields=name",
          body: "",
        }),
        isError: false,
      },
      {
        role: "tool",
        callId: "call_2",
        name: "denied",
        content: "HTTP 401: bad token: Bearer [redacted]",
        isError: true,
      },
    ]);
    expect(server.requests.map((request) => request.headers.authorization)).toEqual([
      `Bearer ${SECRET}`,
      `Bearer ${SECRET}`,
    ]);
    expect(JSON.stringify(events)).not.toContain(SECRET);
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it("an argument the model adds is an error result it can read, and nothing is sent", async () => {
    const docs = httpTool({
      name: "docs",
      description: "Read a document",
      url: `${server.base}/docs/{id}?scope=read`,
    });
    const model = scriptedModel([
      {
        toolCalls: [
          { id: "call_1", name: "docs", arguments: { id: "42", scope: "admin", delete: "true" } },
        ],
      },
      { content: "Refused." },
    ]);
    const before = server.requests.length;
    const result = await createClient({ model, tools: [docs] }).run("Read doc 42 as admin.");
    expect(result.status).toBe("done");
    expect(model.requests[1]?.messages.filter((message) => message.role === "tool")).toEqual([
      {
        role: "tool",
        callId: "call_1",
        name: "docs",
        content:
          'arguments "scope", "delete" are not declared by the tool\'s input schema; nothing was sent',
        isError: true,
      },
    ]);
    expect(server.requests).toHaveLength(before);
  });

  it("the client's tool budget aborts the request", async () => {
    const slow = httpTool({
      name: "slow",
      description: "Never answers",
      url: `${server.base}/slow`,
    });
    const model = scriptedModel([
      { toolCalls: [{ id: "call_1", name: "slow", arguments: {} }] },
      { content: "Gave up." },
    ]);
    const before = server.requests.length;
    const client = createClient({ model, tools: [slow], toolTimeoutMs: 150 });
    const result = await client.run("Try the slow endpoint.");
    expect(result.status).toBe("done");
    expect(result.toolCalls[0]).toMatchObject({ name: "slow", status: "error", timedOut: true });
    // On a busy machine the budget may end before the request reaches the server: then none was
    // sent. Either way, once every connection is closed, no request was left answered or open.
    await server.settled();
    const sent = server.requests.slice(before);
    expect(sent.map((request) => [request.url, request.aborted])).toEqual(
      sent.map(() => ["/slow", true]),
    );
  });
});
