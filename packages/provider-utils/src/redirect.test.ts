import { afterEach, describe, expect, it } from "vitest";
import { ProviderError } from "./errors.js";
import { type MockServer, startMockServer } from "./mock-server.js";
import { fetchSameOrigin } from "./redirect.js";

const servers: MockServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
const settings = { provider: "test", secrets: ["sk-redirect-secret-99"] };
const init: RequestInit = {
  method: "POST",
  headers: { "x-api-key": "sk-redirect-secret-99" },
  body: "{}",
};

describe("fetchSameOrigin", () => {
  it("refuses an http -> https hop on the same host (another origin)", async () => {
    const server = await startMockServer([
      { status: 308, headers: { location: "https://127.0.0.1/v1" }, text: "" },
    ]);
    servers.push(server);
    const error = await fetchSameOrigin(fetch, `${server.url}/v1`, init, settings).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ code: "provider_redirect", status: 308 });
    expect(server.requests).toHaveLength(1);
  });

  it("names only the other origin, never the rest of its address", async () => {
    const server = await startMockServer([
      {
        status: 302,
        headers: { location: "http://evil.invalid:81/steal?key=sk-redirect-secret-99" },
        text: "",
      },
    ]);
    servers.push(server);
    const error = (await fetchSameOrigin(fetch, server.url, init, settings).catch(
      (e: unknown) => e,
    )) as Error;
    expect(error.message).toContain("http://evil.invalid:81");
    expect(error.message).not.toContain("steal");
  });

  it("follows a relative same-origin redirect, and stops at maxRedirects", async () => {
    const next: Record<string, string> = { "/a/start": "next0", "/a/next0": "next1" };
    const server = await startMockServer((request) => {
      const location = next[request.path];
      return location === undefined
        ? { json: { path: request.path } }
        : { status: 307, headers: { location }, text: "" };
    });
    servers.push(server);
    const response = await fetchSameOrigin(fetch, `${server.url}/a/start`, init, settings);
    expect(await response.json()).toEqual({ path: "/a/next1" });
    expect(server.requests.map((r) => r.method)).toEqual(["POST", "POST", "POST"]);
    const error = await fetchSameOrigin(fetch, `${server.url}/a/start`, init, {
      ...settings,
      maxRedirects: 1,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "provider_redirect" });
  });

  it("refuses a same-origin hop whose address carries credentials, without quoting them", async () => {
    const server = await startMockServer((request) => ({
      status: 307,
      headers: { location: `${server.url.replace("://", "://u:srv-pass-77@")}/next` },
      text: request.path,
    }));
    servers.push(server);
    const error = (await fetchSameOrigin(fetch, server.url, init, settings).catch(
      (e: unknown) => e,
    )) as ProviderError;
    expect(error).toMatchObject({ code: "provider_redirect", retryable: false });
    expect(`${error.message} ${error.stack}`).not.toContain("srv-pass-77");
    expect(server.requests).toHaveLength(1);
  });

  it("a 3xx without a location is handed back as it is", async () => {
    const server = await startMockServer([{ status: 304, text: "" }]);
    servers.push(server);
    const response = await fetchSameOrigin(fetch, server.url, init, settings);
    expect(response.status).toBe(304);
  });
});
