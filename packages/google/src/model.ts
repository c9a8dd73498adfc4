import type { Model } from "@toolnexus/core";
import { defineHttpModel, type HttpModelOptions, joinUrl } from "@toolnexus/provider-utils";
import { googleErrors } from "./errors.js";
import { generateContentBody } from "./request.js";
import { parseGenerateContent } from "./response.js";
import { GeminiStreamAssembler } from "./stream.js";
import { VERSION } from "./version.js";

/** The Gemini API, used when neither `baseUrl` nor `GOOGLE_GEMINI_BASE_URL` is set. */
export const GEMINI_BASE_URL = "https://generativelanguage.googleapis.com/v1beta";

/** Options of {@link google}. */
export interface GoogleOptions extends HttpModelOptions {
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
  /**
   * The longest wait before a retry, in ms, whatever the server asks for (`Retry-After`, or the
   * `retryDelay` of Google's `RetryInfo` error detail). Default 60000.
   */
  maxRetryDelayMs?: number;
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
  return geminiModel(options);
}

const geminiModel = defineHttpModel<GoogleOptions>({
  provider: PROVIDER,
  genAiProvider: GENAI_PROVIDER,
  exampleModel: "gemini-2.5-flash",
  userAgent: { product: "toolnexus-google", version: VERSION },
  baseUrl: { env: "GOOGLE_GEMINI_BASE_URL", default: GEMINI_BASE_URL },
  // The official SDKs' order; the key goes in a header, never in the URL.
  apiKey: {
    env: ["GOOGLE_API_KEY", "GEMINI_API_KEY"],
    header: (apiKey) => ({ "x-goog-api-key": apiKey }),
    keyHeaders: ["x-goog-api-key"],
  },
  wrapFetch: (fetch, { maxErrorBodyBytes, secrets }) =>
    googleErrors(fetch, maxErrorBodyBytes, secrets),
  modelName: (model) => model.trim().replace(/^models\//, ""),
  url: (baseUrl, { model, stream }) => {
    const method = stream ? "streamGenerateContent" : "generateContent";
    const url = new URL(joinUrl(baseUrl, `models/${encodeURIComponent(model)}:${method}`));
    if (stream) url.searchParams.set("alt", "sse");
    return url.toString();
  },
  request: (request, { requestParams }) => generateContentBody(request, requestParams),
  response: parseGenerateContent,
  stream: (context) => new GeminiStreamAssembler(context),
});
