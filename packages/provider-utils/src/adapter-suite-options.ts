// The option scenarios of the adapter suite: what every adapter built on defineHttpModel (or
// not) promises about its options, its key and its headers. Split from adapter-suite.ts to keep
// one concept per file.
import type { Model, ModelRequest, ModelStreamPart } from "@toolnexus/core";
import { MissingApiKeyError } from "./errors.js";
import type { FetchFunction } from "./http.js";
import {
  type MockReply,
  type MockServer,
  type RecordedRequest,
  startMockServer,
} from "./mock-server.js";

/** What the option scenarios need to know of an adapter (see `AdapterHarness.options`). */
export interface KitOptionsHarness {
  /**
   * Calls the adapter's factory with exactly these options (the scenarios pass `model`,
   * `baseUrl`, `apiKey`, `headers`, `fetch`, `id`, retry and size options, and bad values).
   */
  create(options: Record<string, unknown> & { model: string }): Model;
  /** The environment variables the key is read from; the first is the one the scenarios set. */
  apiKeyEnv: readonly string[];
  /** The header the key is sent in (lower-case) and its value for a key. */
  keyHeader: { name: string; value(apiKey: string): string };
  /** The `user-agent` product (e.g. `toolnexus-openai`) and the package version. */
  userAgent: { product: string; version: string };
  /** The prefix of the default id, e.g. `"openai"` for `"openai:<model>"`. */
  idPrefix: string;
  /** The public API's base URL, used when neither the option nor the environment sets one. */
  defaultBaseUrl: string;
}

/** What the option scenarios get from the suite around them. */
export interface OptionsContext {
  provider: string;
  apiKey: string;
  harness: KitOptionsHarness;
  /** The environment variable of the base URL. */
  baseUrlEnv: string;
  /** A 2xx reply of a text turn, JSON or streamed as the request asks. */
  okReply(request: RecordedRequest): MockReply;
  request: ModelRequest;
  expectedText: string;
}

type Vitest = typeof import("vitest");

const ENV_KEY = "kit-env-key-0b6d2f9a41";
const OWN_KEY = "kit-own-credential-7c1e";

async function drain(stream: AsyncIterable<ModelStreamPart>): Promise<string> {
  let text = "";
  for await (const part of stream) if (part.type === "text") text += part.delta;
  return text;
}

/** Registers the option scenarios (inside the suite's own `describe`). */
export function optionScenarios(vitest: Vitest, ctx: OptionsContext): void {
  const { afterEach, beforeEach, describe, expect, it, vi } = vitest;
  const { harness } = ctx;
  const keyHeader = harness.keyHeader.name;
  let server: MockServer | undefined;
  beforeEach(() => {
    // The machine's own variables must not leak into these scenarios.
    for (const variable of [...harness.apiKeyEnv, ctx.baseUrlEnv]) vi.stubEnv(variable, "");
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    await server?.close();
    server = undefined;
  });
  const serveOk = async () => {
    server = await startMockServer((request) => ctx.okReply(request));
    return server;
  };
  const create = (options: Record<string, unknown> = {}) =>
    harness.create({ model: "kit-model", retries: 0, ...options });
  /** Every header of every request, for "never sent" checks. */
  const everyHeader = () => JSON.stringify(server?.requests.map((r) => r.headers));
  /** A fetch that records the URLs and answers the text turn. */
  const recordingFetch = () => {
    const urls: string[] = [];
    const fetch: FetchFunction = async (input, init) => {
      urls.push(input);
      const reply = ctx.okReply({
        method: "POST",
        path: new URL(input).pathname,
        headers: {},
        rawBody: String(init.body),
        body: JSON.parse(String(init.body)),
      });
      return "json" in reply ? Response.json(reply.json) : new Response("{}");
    };
    return { urls, fetch };
  };

  describe("options, key and headers", () => {
    it(`the key defaults to ${harness.apiKeyEnv[0]}, read at each call`, async () => {
      const { url } = await serveOk();
      const m = create({ baseUrl: url });
      vi.stubEnv(harness.apiKeyEnv[0] ?? "", ENV_KEY);
      await m.generate(ctx.request);
      expect(server?.requests[0]?.headers[keyHeader]).toBe(harness.keyHeader.value(ENV_KEY));
    });

    it("a missing key is a MissingApiKeyError at the first call, naming the variable; nothing is sent", async () => {
      const fetch = vi.fn<FetchFunction>();
      const m = create({ baseUrl: "https://kit.invalid/api", fetch });
      const calls: (() => Promise<unknown>)[] = [() => m.generate(ctx.request)];
      const stream = m.stream;
      if (stream !== undefined) calls.push(() => drain(stream.call(m, ctx.request)));
      for (const call of calls) {
        const error = await call().then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(error).toBeInstanceOf(MissingApiKeyError);
        expect((error as MissingApiKeyError).code).toBe("missing_api_key");
        expect((error as Error).message).toContain(harness.apiKeyEnv[0]);
      }
      expect(fetch).not.toHaveBeenCalled();
    });

    it("a loopback server needs no key, and gets no key header", async () => {
      const { url } = await serveOk();
      expect((await create({ baseUrl: url }).generate(ctx.request)).text).toBe(ctx.expectedText);
      expect(server?.requests[0]?.headers[keyHeader]).toBeUndefined();
    });

    it("the caller's own key header, in any letter case, replaces the key: never joined", async () => {
      vi.stubEnv(harness.apiKeyEnv[0] ?? "", ENV_KEY);
      const { url } = await serveOk();
      const upper = keyHeader.toUpperCase();
      const title = keyHeader.replace(
        /(^|-)([a-z])/g,
        (_m, dash, c: string) => dash + c.toUpperCase(),
      );
      await create({ baseUrl: url, headers: { [title]: OWN_KEY } }).generate(ctx.request);
      const m = create({ baseUrl: url, headers: { [upper]: OWN_KEY } });
      if (m.stream !== undefined) await drain(m.stream(ctx.request));
      // An explicit apiKey loses to the caller's own header too.
      await create({
        baseUrl: url,
        apiKey: ctx.apiKey,
        headers: { [keyHeader]: OWN_KEY },
      }).generate(ctx.request);
      for (const request of server?.requests ?? [])
        expect(request.headers[keyHeader]).toBe(OWN_KEY);
      expect(everyHeader()).not.toContain(ENV_KEY);
      expect(everyHeader()).not.toContain(ctx.apiKey);
    });

    it("a gateway's own credential header means no key from the environment is sent", async () => {
      vi.stubEnv(harness.apiKeyEnv[0] ?? "", ENV_KEY);
      const { url } = await serveOk();
      const other = keyHeader === "authorization" ? "API-Key" : "Authorization";
      await create({ baseUrl: url, headers: { [other]: OWN_KEY } }).generate(ctx.request);
      expect(server?.requests[0]?.headers[other.toLowerCase()]).toBe(OWN_KEY);
      expect(server?.requests[0]?.headers[keyHeader]).toBeUndefined();
      expect(everyHeader()).not.toContain(ENV_KEY);
    });

    it("sends a user-agent naming the library and its version, which the caller can override", async () => {
      const { url } = await serveOk();
      await create({ baseUrl: url }).generate(ctx.request);
      const m = create({ baseUrl: url });
      if (m.stream !== undefined) await drain(m.stream(ctx.request));
      await create({ baseUrl: url, headers: { "User-Agent": "my-app/1.0" } }).generate(ctx.request);
      const ours = `${harness.userAgent.product}/${harness.userAgent.version} node/${process.versions.node}`;
      const agents = server?.requests.map((request) => request.headers["user-agent"]);
      expect(agents?.slice(0, -1).every((agent) => agent === ours)).toBe(true);
      expect(agents?.at(-1)).toBe("my-app/1.0");
    });

    it("the caller's headers win over the adapter's own, whatever their case", async () => {
      const { url } = await serveOk();
      await create({
        baseUrl: url,
        headers: { "Content-Type": "application/json; charset=utf-8", "X-Title": "t" },
      }).generate(ctx.request);
      expect(server?.requests[0]?.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(server?.requests[0]?.headers["x-title"]).toBe("t");
    });

    it(`calls the public API by default, else ${ctx.baseUrlEnv}, read at each call`, async () => {
      vi.stubEnv(harness.apiKeyEnv[0] ?? "", ENV_KEY);
      const { urls, fetch } = recordingFetch();
      const m = create({ fetch });
      await m.generate(ctx.request);
      vi.stubEnv(ctx.baseUrlEnv, "https://gateway.kit.example/base");
      await m.generate(ctx.request);
      expect(urls).toHaveLength(2);
      expect(urls[0]?.startsWith(harness.defaultBaseUrl)).toBe(true);
      expect(urls[1]?.startsWith("https://gateway.kit.example/base/")).toBe(true);
    });

    it("bad options fail at construction with a TypeError naming the option", () => {
      expect(() => harness.create({ model: "" })).toThrow(TypeError);
      expect(() => harness.create({ model: "" })).toThrow(/"model" must be a non-empty string/);
      for (const name of ["retries", "retryBaseMs", "maxRetryDelayMs"]) {
        expect(() => create({ [name]: -1 })).toThrow(new RegExp(`${ctx.provider}: ${name}`));
      }
      // A longer wait would reach setTimeout, which fires after 1 ms past 2^31 - 1 ms.
      expect(() => create({ maxRetryDelayMs: 2 ** 31 })).toThrow(
        new RegExp(`${ctx.provider}: maxRetryDelayMs must be a number from 0 to 2147483647`),
      );
      for (const name of ["maxErrorBodyBytes", "maxEventBytes", "maxResponseBytes"]) {
        expect(() => create({ [name]: 0 })).toThrow(new RegExp(`${ctx.provider}: ${name}`));
      }
      expect(() => create({ baseUrl: "not a url" })).toThrow(/baseUrl/);
    });

    it("a baseUrl without a scheme is refused at construction, saying what to write", async () => {
      expect(() => create({ baseUrl: "localhost:8787/v1" })).toThrow(
        `${ctx.provider}: "baseUrl" must be an absolute URL starting with http:// or https://, e.g. "http://localhost:8787/v1"; got "localhost:8787/v1"`,
      );
      expect(() => create({ baseUrl: "api.example.com/v1" })).toThrow(
        /e\.g\. "https:\/\/api\.example\.com\/v1"/,
      );
      // The environment's base URL is read at each call: the same mistake there fails the call.
      const fetch = vi.fn<FetchFunction>();
      const m = create({ apiKey: ctx.apiKey, fetch });
      vi.stubEnv(ctx.baseUrlEnv, "localhost:8787/v1");
      await expect(m.generate(ctx.request)).rejects.toThrow(
        new RegExp(
          `"${ctx.baseUrlEnv}" must be an absolute URL .* e\\.g\\. "http://localhost:8787/v1"`,
        ),
      );
      expect(fetch).not.toHaveBeenCalled();
    });

    it("has a readable id, or the one given", () => {
      expect(create().id).toBe(`${harness.idPrefix}:kit-model`);
      expect(create({ id: "mine" }).id).toBe("mine");
    });
  });
}
