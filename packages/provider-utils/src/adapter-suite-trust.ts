// The trust scenarios of the adapter suite: what a hostile or broken provider can make the
// adapter do with the key (echo it in any error field, under any JSON spelling, redirect it
// elsewhere); what it can make it hold in memory is in adapter-suite-limits.ts. Split from
// adapter-suite.ts to keep one concept per file.
import { inspect } from "node:util";
import type { Model, ModelStreamPart } from "@toolnexus/core";
import type { KitErrorReport, TrustContext } from "./adapter-suite-context.js";
import { limitScenarios } from "./adapter-suite-limits.js";
import { BaseUrlCredentialsError, ProviderError } from "./errors.js";
import {
  type MockReply,
  type MockServer,
  type RecordedRequest,
  startMockServer,
} from "./mock-server.js";

type Vitest = typeof import("vitest");

/** A header a gateway might need, which must not leave its origin either. */
const GATEWAY_SECRET = "kit-gateway-token-5d2e8a1b9c";
const URL_PASSWORD = "kit-url-password-3e9b1f";
const REDIRECTS = [301, 302, 307, 308] as const;

async function drain(stream: AsyncIterable<ModelStreamPart>): Promise<string> {
  let text = "";
  for await (const part of stream) if (part.type === "text") text += part.delta;
  return text;
}

/** The call's rejection (or a marker error when it resolved). */
async function failure(call: () => Promise<unknown>): Promise<unknown> {
  return call().then(
    () => new Error("expected the call to fail, it succeeded"),
    (thrown: unknown) => thrown,
  );
}

/** Every way an error is shown or stored: none may hold a secret. */
function renderings(error: unknown): Record<string, string> {
  const e = error as ProviderError;
  return {
    message: String(e?.message),
    stack: String(e?.stack),
    json: JSON.stringify(e),
    inspect: inspect(e, { depth: 6 }),
    providerType: String(e?.providerType),
    providerCode: String(e?.providerCode),
    providerMessage: String(e?.providerMessage),
    headers: JSON.stringify(e?.responseHeaders ?? {}),
    cause: inspect(e?.cause, { depth: 6 }),
  };
}

function leaksOf(error: unknown, secrets: readonly string[]): string[] {
  return Object.entries(renderings(error))
    .filter(([, text]) => secrets.some((secret) => text.includes(secret)))
    .map(([where]) => where);
}

/** Registers the trust scenarios (inside the suite's own `describe`). */
export function trustScenarios(vitest: Vitest, ctx: TrustContext): void {
  const { afterEach, describe, expect, it, vi } = vitest;
  const servers: MockServer[] = [];
  afterEach(async () => {
    vi.unstubAllEnvs();
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  const serve = async (script: (request: RecordedRequest, index: number) => MockReply) => {
    const server = await startMockServer(script);
    servers.push(server);
    return server;
  };
  const secrets = [ctx.apiKey, GATEWAY_SECRET];
  /** Generate, and stream when the model streams. */
  const calls = (m: Model): (() => Promise<unknown>)[] => {
    const list: (() => Promise<unknown>)[] = [() => m.generate(ctx.request)];
    const stream = m.stream;
    if (stream !== undefined) list.push(() => drain(stream.call(m, ctx.request)));
    return list;
  };

  describe("provider text never carries the key", () => {
    const key = ctx.apiKey;
    const report: KitErrorReport = {
      status: 400,
      message: `The key ${key} is not valid`,
      type: key,
      code: `invalid_${key}`,
    };
    // The key once as sent, once JSON-escaped (`\u006b...`): it reads the same once parsed.
    const jsonEscape = (text: string) =>
      text.split(key).join(`\\u${key.charCodeAt(0).toString(16).padStart(4, "0")}${key.slice(1)}`);
    for (const escaped of [false, true]) {
      const how = escaped ? " (JSON-escaped)" : "";
      const encode = (value: unknown) => {
        const text = typeof value === "string" ? value : JSON.stringify(value);
        return escaped ? jsonEscape(text) : text;
      };

      it(`in every field of an HTTP error body${how}`, async () => {
        const server = await serve(() => ({
          status: 400,
          headers: { "content-type": "application/json", "x-request-id": `req_${key}` },
          text: encode(ctx.errorReport.http(400, report)),
        }));
        for (const call of calls(ctx.model({ baseUrl: server.url, retries: 0 }))) {
          const error = await failure(call);
          expect(error).toBeInstanceOf(ProviderError);
          expect(leaksOf(error, secrets)).toEqual([]);
          expect(inspect(error)).toContain("[redacted]");
        }
      });

      it(`in every field of an error in a 200 body${how}`, async () => {
        const server = await serve(() => ({
          headers: { "content-type": "application/json" },
          text: encode(ctx.errorReport.body(report)),
        }));
        const error = await failure(() =>
          ctx.model({ baseUrl: server.url, retries: 0 }).generate(ctx.request),
        );
        expect(error).toBeInstanceOf(ProviderError);
        expect(leaksOf(error, secrets)).toEqual([]);
        expect(inspect(error)).toContain("[redacted]");
      });

      it(`in every field of an error event in a stream${how}`, async () => {
        const server = await serve(() => ({ chunks: [encode(ctx.errorReport.stream(report))] }));
        const m = ctx.model({ baseUrl: server.url, retries: 0 });
        if (m.stream === undefined) return;
        const error = await failure(() => drain(m.stream!(ctx.request)));
        expect(error).toBeInstanceOf(ProviderError);
        expect(leaksOf(error, secrets)).toEqual([]);
        expect(inspect(error)).toContain("[redacted]");
      });
    }

    it("a key cut in two by maxErrorBodyBytes leaves no part of it", async () => {
      const server = await serve(() => ({ status: 400, text: `${"e".repeat(90)}${ctx.apiKey}` }));
      const error = await failure(() =>
        ctx
          .model({ baseUrl: server.url, retries: 0, maxErrorBodyBytes: 100 })
          .generate(ctx.request),
      );
      expect(error).toBeInstanceOf(ProviderError);
      expect(leaksOf(error, [ctx.apiKey.slice(0, 8)])).toEqual([]);
    });

    // A body of no known shape (nothing to take a message from) is shown as a snippet: the key
    // must not survive in it under any JSON spelling (a `\/`-style escape is the provider
    // tests' own, the kit key has no `/`).
    const spellings: Record<string, string> = {
      "every character \\u-escaped, upper-case hex": [...key]
        .map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0").toUpperCase()}`)
        .join(""),
      "escaped again inside a JSON string": JSON.stringify(jsonEscape(key)).slice(1, -1),
    };
    for (const [how, spelled] of Object.entries(spellings)) {
      it(`in an error body of no known shape (${how})`, async () => {
        for (const body of [
          `{"received_key":"${spelled}"}`,
          `{"error":{"type":"invalid_request_error","param":"key ${spelled}"}}`,
        ]) {
          const server = await serve(() => ({
            status: 400,
            headers: { "content-type": "application/json" },
            text: body,
          }));
          for (const call of calls(ctx.model({ baseUrl: server.url, retries: 0 }))) {
            const error = await failure(call);
            expect(error).toMatchObject({ code: "provider_http", status: 400 });
            // Neither the key nor its spelling (whose tail reads the same in any rendering).
            expect(leaksOf(error, [...secrets, spelled.slice(-24)])).toEqual([]);
            expect((error as ProviderError).providerMessage).toContain("[redacted]");
          }
        }
      });
    }
  });

  describe("redirects", () => {
    const headers = { "x-gateway-token": GATEWAY_SECRET };
    for (const status of REDIRECTS) {
      it(`${status} to another origin is refused: nothing reaches it, nothing is retried`, async () => {
        const other = await serve((request) => ctx.okReply(request));
        const server = await serve((request) => ({
          status,
          headers: { location: `${other.url}${request.path}` },
          text: "",
        }));
        const m = ctx.model({ baseUrl: server.url, retries: 2, headers });
        for (const call of calls(m)) {
          const before = server.requests.length;
          const error = await failure(call);
          expect(error).toBeInstanceOf(ProviderError);
          expect(error).toMatchObject({ code: "provider_redirect", status, retryable: false });
          expect((error as Error).message).toContain(other.url);
          expect(leaksOf(error, secrets)).toEqual([]);
          expect(server.requests.length - before).toBe(1);
        }
        expect(other.requests).toEqual([]);
        // The key and the gateway header did reach the origin they were configured for.
        const sent = JSON.stringify(server.requests[0]?.headers);
        expect(sent).toContain(ctx.apiKey);
        expect(sent).toContain(GATEWAY_SECRET);
      });
    }

    it("the same port under another host name is another origin, and refused", async () => {
      const server = await serve((request) => ({
        status: 307,
        headers: { location: `${server.url.replace("127.0.0.1", "localhost")}${request.path}` },
        text: "",
      }));
      const error = await failure(() =>
        ctx.model({ baseUrl: server.url, retries: 0, headers }).generate(ctx.request),
      );
      expect(error).toMatchObject({ code: "provider_redirect" });
      expect(server.requests).toHaveLength(1);
    });

    for (const status of REDIRECTS) {
      it(`${status} within the origin is followed with the same method, headers and body`, async () => {
        const server = await serve((request, index) =>
          index % 2 === 0
            ? { status, headers: { location: `/moved${request.path}` }, text: "" }
            : ctx.okReply(request),
        );
        const m = ctx.model({ baseUrl: server.url, retries: 0, headers });
        expect((await m.generate(ctx.request)).text).toBe(ctx.expectedText);
        if (m.stream !== undefined)
          expect(await drain(m.stream(ctx.request))).toBe(ctx.expectedText);
        for (let i = 0; i < server.requests.length; i += 2) {
          const [first, second] = [server.requests[i], server.requests[i + 1]];
          expect(second?.method).toBe("POST");
          expect(second?.path).toBe(`/moved${first?.path}`);
          expect(second?.rawBody).toBe(first?.rawBody);
          expect(JSON.stringify(second?.headers)).toContain(ctx.apiKey);
          expect(second?.headers["x-gateway-token"]).toBe(GATEWAY_SECRET);
        }
      });
    }

    it("a redirect loop within the origin stops after 5 hops", async () => {
      const server = await serve((request, index) => ({
        status: 307,
        headers: { location: `/loop/${index}${request.path.replace(/^\/loop\/\d+/, "")}` },
        text: "",
      }));
      const error = await failure(() =>
        ctx.model({ baseUrl: server.url, retries: 2 }).generate(ctx.request),
      );
      expect(error).toMatchObject({ code: "provider_redirect", retryable: false });
      expect((error as Error).message).toContain("more than 5 redirects");
      expect(server.requests).toHaveLength(6);
    });
  });

  describe("a base URL with credentials", () => {
    const hidden = ["kit-user", URL_PASSWORD];
    it("is refused at construction, without echoing them", async () => {
      const server = await serve((request) => ctx.okReply(request));
      const withCredentials = server.url.replace("://", `://kit-user:${URL_PASSWORD}@`);
      const error = await failure(async () => ctx.model({ baseUrl: withCredentials, retries: 0 }));
      expect(error).toBeInstanceOf(BaseUrlCredentialsError);
      expect(error).toMatchObject({ code: "base_url_credentials", setting: "baseUrl" });
      expect(leaksOf(error, hidden)).toEqual([]);
      expect(server.requests).toEqual([]);
    });

    it(`from the environment is refused at construction, without echoing them`, async () => {
      vi.stubEnv(ctx.baseUrlEnv.variable, `http://kit-user:${URL_PASSWORD}@127.0.0.1:9/v1`);
      const error = await failure(async () => ctx.baseUrlEnv.model(ctx.apiKey));
      expect(error).toBeInstanceOf(BaseUrlCredentialsError);
      expect(error).toMatchObject({ setting: ctx.baseUrlEnv.variable });
      expect(leaksOf(error, hidden)).toEqual([]);
      expect((error as Error).message).toContain(ctx.baseUrlEnv.variable);
    });
  });

  limitScenarios(vitest, ctx, { serve, calls, failure, drain });

  it("the model says which provider it talks to (gen_ai.provider.name)", () => {
    const provider = ctx.model({ baseUrl: "http://127.0.0.1:9", retries: 0 }).provider;
    expect(typeof provider).toBe("string");
    expect(provider).not.toBe("");
  });
}
