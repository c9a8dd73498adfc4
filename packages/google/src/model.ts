import type {
  Model,
  ModelCallOptions,
  ModelRequest,
  ModelResponse,
  ModelStreamPart,
} from "@toolnexus/core";
import {
  checkBaseUrl,
  credentialValues,
  type FetchFunction,
  type HttpSettings,
  hasCredentialHeader,
  isLoopbackUrl,
  joinUrl,
  limitOptions,
  MissingApiKeyError,
  mergeHeaders,
  parseEventData,
  postForStream,
  postJson,
  readEnv,
  refuseUrlCredentials,
  retryOptions,
  streamEvents,
  userAgent,
} from "@toolnexus/provider-utils";
import { googleErrors } from "./errors.js";
import { generateContentBody } from "./request.js";
import { parseGenerateContent } from "./response.js";
import { GeminiStreamAssembler } from "./stream.js";
import { VERSION } from "./version.js";

/** The Gemini API, used when neither `baseUrl` nor `GOOGLE_GEMINI_BASE_URL` is set. */
export const GEMINI_BASE_URL = "https://generativelanguage.googleapis.com/v1beta";

/** Options of {@link google}. */
export interface GoogleOptions {
  /** The model name, e.g. `"gemini-2.5-flash"` or `"gemini-3-pro-preview"` (`models/` optional). */
  model: string;
  /**
   * The API root that `/models/<model>:generateContent` is appended to (a query string is
   * kept). Defaults to `GOOGLE_GEMINI_BASE_URL` from the environment, else
   * `https://generativelanguage.googleapis.com/v1beta`.
   */
  baseUrl?: string;
  /**
   * Sent as `x-goog-api-key` (never in the URL). Defaults to `GOOGLE_API_KEY`, else
   * `GEMINI_API_KEY` from the environment (the official SDKs' order), which is not sent when
   * `headers` carry their own `x-goog-api-key`, `authorization`, `x-api-key` or `api-key`. Not
   * needed for a `baseUrl` on loopback.
   */
  apiKey?: string;
  /**
   * Extra headers on every request. Names are compared case-insensitively and these win over the
   * adapter's own, `user-agent` (default `toolnexus-google/<version> node/<version>`) and
   * `x-goog-api-key` included.
   */
  headers?: Record<string, string>;
  /** The `fetch` to use; defaults to the global one. */
  fetch?: FetchFunction;
  /** Retries after the first attempt on 429, 500, 502, 503, 504 and network errors. Default 2. */
  retries?: number;
  /** Base of the exponential backoff between retries, in ms. Default 500. */
  retryBaseMs?: number;
  /**
   * The longest wait before a retry, in ms, whatever the server asks for (`Retry-After`, or the
   * `retryDelay` of Google's `RetryInfo` error detail). Default 60000.
   */
  maxRetryDelayMs?: number;
  /**
   * How much of an error response's body is read, in bytes (the rest is never downloaded; the
   * error's message is cut further, to 2000 characters). Default 65536 (64 KiB).
   */
  maxErrorBodyBytes?: number;
  /**
   * The largest single streamed event, in bytes: a larger one stops the stream with a
   * `ProviderError` of code `"provider_limit"`, without reading it whole. Default 16 MiB.
   */
  maxEventBytes?: number;
  /**
   * The largest non-streamed answer, in bytes: a larger one is a `ProviderError` of code
   * `"provider_limit"`, without reading it whole. Default 64 MiB.
   */
  maxResponseBytes?: number;
  /**
   * Extra body keys merged into every request (e.g. `generationConfig` with `temperature` or
   * `thinkingConfig`, `safetySettings`, `toolConfig`, `cachedContent`). They win over the
   * adapter's own keys, except `contents` and `tools`.
   */
  requestParams?: Record<string, unknown>;
  /** The model's label in logs and `RunResult.model`. Default `"google:<model>"`. */
  id?: string;
}

const PROVIDER = "google";
/** `gen_ai.provider.name` in OpenTelemetry's GenAI conventions for the Gemini API. */
const GENAI_PROVIDER = "gcp.gemini";

/**
 * A {@link Model} for the Gemini API (`generateContent`, and `streamGenerateContent` with
 * `alt=sse`): text, function calls and their results, thought signatures carried back to the
 * model, usage and finish reasons. Use it as the `model` of `createClient` from
 * `@toolnexus/client`.
 *
 * Nothing is sent at construction; the API key is looked up at each call, so a missing key is
 * a {@link MissingApiKeyError} at the first call, naming `GOOGLE_API_KEY` and `GEMINI_API_KEY`.
 *
 * @example
 * import { google } from "@toolnexus/google";
 * const model = google({ model: "gemini-2.5-flash" }); // reads GOOGLE_API_KEY or GEMINI_API_KEY
 */
export function google(options: GoogleOptions): Model {
  if (typeof options?.model !== "string" || options.model.trim() === "") {
    throw new TypeError('google: "model" must be a non-empty string, e.g. "gemini-2.5-flash"');
  }
  const givenBaseUrl =
    options.baseUrl === undefined ? undefined : checkBaseUrl(PROVIDER, "baseUrl", options.baseUrl);
  // A base URL from the environment is read at each call, but credentials in it fail now.
  if (givenBaseUrl === undefined) {
    const env = readEnv("GOOGLE_GEMINI_BASE_URL");
    if (env !== undefined) refuseUrlCredentials(PROVIDER, "GOOGLE_GEMINI_BASE_URL", env);
  }
  const { retries, retryBaseMs, maxRetryDelayMs } = retryOptions(PROVIDER, options);
  const limits = limitOptions(PROVIDER, options);
  const model = options.model.trim().replace(/^models\//, "");
  const requestParams = { ...options.requestParams };
  const extraHeaders = mergeHeaders(options.headers);
  const agent = userAgent("toolnexus-google", VERSION);

  const prepare = (signal: AbortSignal | undefined, stream: boolean) => {
    const envBaseUrl = readEnv("GOOGLE_GEMINI_BASE_URL");
    const baseUrl =
      givenBaseUrl ??
      (envBaseUrl === undefined
        ? GEMINI_BASE_URL
        : checkBaseUrl(PROVIDER, "GOOGLE_GEMINI_BASE_URL", envBaseUrl));
    const apiKey = resolveKey(options.apiKey, baseUrl, extraHeaders);
    const headers = mergeHeaders(
      { "content-type": "application/json" },
      agent === undefined ? undefined : { "user-agent": agent },
      apiKey === undefined ? undefined : { "x-goog-api-key": apiKey },
      extraHeaders,
    );
    const secrets = [...(apiKey === undefined ? [] : [apiKey]), ...credentialValues(headers)];
    const http: HttpSettings = {
      provider: PROVIDER,
      fetch: googleErrors(options.fetch, limits.maxErrorBodyBytes, secrets),
      retries,
      retryBaseMs,
      maxRetryDelayMs,
      ...limits,
      secrets,
    };
    const url = new URL(
      joinUrl(
        baseUrl,
        `models/${encodeURIComponent(model)}:${stream ? "streamGenerateContent" : "generateContent"}`,
      ),
    );
    if (stream) url.searchParams.set("alt", "sse");
    return { url: url.toString(), headers, signal, http };
  };

  return {
    id: options.id ?? `${PROVIDER}:${model}`,
    provider: GENAI_PROVIDER,

    async generate(request: ModelRequest, call?: ModelCallOptions): Promise<ModelResponse> {
      const { http, ...post } = prepare(call?.signal, false);
      const body = generateContentBody(request, requestParams);
      const json = await postJson({ ...post, body }, http);
      return parseGenerateContent(json, http);
    },

    async *stream(request: ModelRequest, call?: ModelCallOptions): AsyncGenerator<ModelStreamPart> {
      const { http, ...post } = prepare(call?.signal, true);
      const body = generateContentBody(request, requestParams);
      const response = await postForStream({ ...post, body }, http);
      const assembler = new GeminiStreamAssembler(http);
      for await (const event of streamEvents(response, call?.signal, http)) {
        yield* assembler.push(parseEventData(event, http));
      }
      yield* assembler.end();
    },
  };
}

/**
 * The API key to send as `x-goog-api-key`: the given one, else `GOOGLE_API_KEY`, else
 * `GEMINI_API_KEY`, unless the caller's headers carry their own credentials.
 */
function resolveKey(
  givenKey: string | undefined,
  baseUrl: string,
  headers: Readonly<Record<string, string>>,
): string | undefined {
  if (givenKey !== undefined && givenKey !== "") return givenKey;
  const ownKey = Object.entries(headers).some(
    ([name, value]) => name.toLowerCase() === "x-goog-api-key" && value.trim() !== "",
  );
  if (ownKey || hasCredentialHeader(headers)) return undefined;
  const key = readEnv("GOOGLE_API_KEY") ?? readEnv("GEMINI_API_KEY");
  if (key !== undefined) return key;
  if (isLoopbackUrl(baseUrl)) return undefined;
  throw new MissingApiKeyError(PROVIDER, ["GOOGLE_API_KEY", "GEMINI_API_KEY"]);
}
