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
import { chatRequestBody, type MaxTokensKey } from "./request.js";
import { parseChatCompletion } from "./response.js";
import { ChatStreamAssembler } from "./stream.js";
import { VERSION } from "./version.js";

/** The OpenAI API, used when neither `baseUrl` nor `OPENAI_BASE_URL` is set. */
export const OPENAI_BASE_URL = "https://api.openai.com/v1";

/** OpenRouter's OpenAI-compatible API, used when only `OPENROUTER_API_KEY` is set. */
export const OPENROUTER_BASE_URL = "https://openrouter.ai/api/v1";

/** Options of {@link openai}. */
export interface OpenAIOptions {
  /** The model name the server knows, e.g. `"gpt-4o-mini"`, `"qwen2.5:7b"`, `"openai/gpt-4o"`. */
  model: string;
  /**
   * The API root that `/chat/completions` is appended to (a query string is kept). Defaults to
   * `OPENAI_BASE_URL` from the environment, else OpenRouter when only `OPENROUTER_API_KEY` is
   * set, else `https://api.openai.com/v1`.
   */
  baseUrl?: string;
  /**
   * Sent as `Authorization: Bearer <apiKey>`. Defaults to `OPENAI_API_KEY` from the environment;
   * `OPENROUTER_API_KEY` is used only when the base URL is OpenRouter's (and is preferred
   * there), so it never reaches another host. No key from the environment is sent when
   * `headers` carry their own `authorization`, `api-key` or `x-api-key` (in any letter case).
   * Not needed for a `baseUrl` on loopback.
   */
  apiKey?: string;
  /**
   * Extra headers on every request (e.g. OpenRouter's `HTTP-Referer`, an Azure `api-key`).
   * Names are compared case-insensitively and these win over the adapter's own, `user-agent`
   * (default `toolnexus-openai/<version> node/<version>`) and `authorization` included.
   */
  headers?: Record<string, string>;
  /** The `fetch` to use; defaults to the global one. */
  fetch?: FetchFunction;
  /** Retries after the first attempt on 429, 500, 502, 503, 504 and network errors. Default 2. */
  retries?: number;
  /** Base of the exponential backoff between retries, in ms. Default 500. */
  retryBaseMs?: number;
  /**
   * The longest wait before a retry, in ms, whatever the server asks for in `retry-after-ms` or
   * `Retry-After` (a `Retry-After: 3600` must not stall a run for an hour). Default 60000.
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
   * Extra body keys merged into every request (e.g. `temperature`, `max_tokens`, `seed`,
   * `tool_choice: "required"`). They win over the adapter's own keys, except `messages`,
   * `tools` and `stream`.
   */
  requestParams?: Record<string, unknown>;
  /** The model's label in logs and `RunResult.model`. Default `"openai:<model>"`. */
  id?: string;
}

const PROVIDER = "openai";
/** `gen_ai.provider.name` in OpenTelemetry's GenAI conventions. */
export const GENAI_PROVIDER = "openai";

/**
 * A {@link Model} for the OpenAI Chat Completions API and every server that speaks it:
 * OpenAI, OpenRouter, Ollama, vLLM, llama.cpp's server, LiteLLM and Azure-style gateways (point
 * `baseUrl` at them). Use it as the `model` of `createClient` from `@toolnexus/client`.
 *
 * Nothing is sent at construction; the API key is looked up at each call, so a missing key is
 * a {@link MissingApiKeyError} at the first call, naming the variables to set.
 *
 * @example
 * import { openai } from "@toolnexus/openai";
 * const model = openai({ model: "gpt-4o-mini" }); // reads OPENAI_API_KEY
 * const local = openai({ model: "qwen2.5:7b", baseUrl: "http://localhost:11434/v1" });
 */
export function openai(options: OpenAIOptions): Model {
  if (typeof options?.model !== "string" || options.model.trim() === "") {
    throw new TypeError('openai: "model" must be a non-empty string, e.g. "gpt-4o-mini"');
  }
  const givenBaseUrl =
    options.baseUrl === undefined ? undefined : checkBaseUrl(PROVIDER, "baseUrl", options.baseUrl);
  // A base URL from the environment is read at each call, but credentials in it fail now.
  if (givenBaseUrl === undefined) {
    const env = readEnv("OPENAI_BASE_URL");
    if (env !== undefined) refuseUrlCredentials(PROVIDER, "OPENAI_BASE_URL", env);
  }
  const { retries, retryBaseMs, maxRetryDelayMs } = retryOptions(PROVIDER, options);
  const limits = limitOptions(PROVIDER, options);
  const model = options.model;
  const requestParams = { ...options.requestParams };
  const extraHeaders = mergeHeaders(options.headers);
  const agent = userAgent("toolnexus-openai", VERSION);

  const prepare = (signal: AbortSignal | undefined) => {
    const { baseUrl, apiKey } = resolveEndpoint(givenBaseUrl, options.apiKey, extraHeaders);
    const headers = mergeHeaders(
      { "content-type": "application/json" },
      agent === undefined ? undefined : { "user-agent": agent },
      apiKey === undefined ? undefined : { authorization: `Bearer ${apiKey}` },
      extraHeaders,
    );
    const secrets = [...(apiKey === undefined ? [] : [apiKey]), ...credentialValues(headers)];
    const http: HttpSettings = {
      provider: PROVIDER,
      fetch: options.fetch,
      retries,
      retryBaseMs,
      maxRetryDelayMs,
      ...limits,
      secrets,
    };
    const maxTokensKey: MaxTokensKey = isOpenAI(baseUrl) ? "max_completion_tokens" : "max_tokens";
    return { url: joinUrl(baseUrl, "chat/completions"), headers, signal, http, maxTokensKey };
  };

  return {
    id: options.id ?? `${PROVIDER}:${model}`,
    provider: GENAI_PROVIDER,

    async generate(request: ModelRequest, call?: ModelCallOptions): Promise<ModelResponse> {
      const { http, maxTokensKey, ...post } = prepare(call?.signal);
      const body = chatRequestBody(model, request, requestParams, false, maxTokensKey);
      const json = await postJson({ ...post, body }, http);
      return parseChatCompletion(json, http);
    },

    async *stream(request: ModelRequest, call?: ModelCallOptions): AsyncGenerator<ModelStreamPart> {
      const { http, maxTokensKey, ...post } = prepare(call?.signal);
      const body = chatRequestBody(model, request, requestParams, true, maxTokensKey);
      const response = await postForStream({ ...post, body }, http);
      const assembler = new ChatStreamAssembler(http);
      let sawDone = false;
      for await (const event of streamEvents(response, call?.signal, http)) {
        if (event.data.trim() === "[DONE]") {
          sawDone = true;
          break;
        }
        yield* assembler.push(parseEventData(event, http));
      }
      yield* assembler.end(sawDone);
    },
  };
}

/**
 * The base URL, and the API key to send as `authorization`. A key from the environment goes
 * only where it belongs: none when the caller's headers carry their own credentials,
 * `OPENROUTER_API_KEY` only to OpenRouter, `OPENAI_API_KEY` to OpenAI and to any other base URL
 * (the convention `OPENAI_BASE_URL` + `OPENAI_API_KEY` of OpenAI-compatible servers).
 */
export function resolveEndpoint(
  givenBaseUrl: string | undefined,
  givenKey: string | undefined,
  headers: Readonly<Record<string, string>>,
): { baseUrl: string; apiKey: string | undefined } {
  const openaiKey = readEnv("OPENAI_API_KEY");
  const openrouterKey = readEnv("OPENROUTER_API_KEY");
  const envBaseUrl = readEnv("OPENAI_BASE_URL");
  const baseUrl =
    givenBaseUrl ??
    (envBaseUrl === undefined
      ? undefined
      : checkBaseUrl(PROVIDER, "OPENAI_BASE_URL", envBaseUrl)) ??
    (openaiKey === undefined && openrouterKey !== undefined
      ? OPENROUTER_BASE_URL
      : OPENAI_BASE_URL);
  if (givenKey !== undefined && givenKey !== "") return { baseUrl, apiKey: givenKey };
  // The caller authenticates on their own (an Azure `api-key`, a gateway's bearer token).
  if (hasCredentialHeader(headers)) return { baseUrl, apiKey: undefined };
  const openRouterHost = isOpenRouter(baseUrl);
  const apiKey = openRouterHost ? (openrouterKey ?? openaiKey) : openaiKey;
  if (apiKey !== undefined) return { baseUrl, apiKey };
  if (isLoopbackUrl(baseUrl)) return { baseUrl, apiKey: undefined };
  if (openRouterHost) {
    throw new MissingApiKeyError(PROVIDER, ["OPENROUTER_API_KEY", "OPENAI_API_KEY"]);
  }
  if (givenBaseUrl === undefined && envBaseUrl === undefined) {
    // The default host: either variable would do (OPENROUTER_API_KEY alone picks OpenRouter).
    throw new MissingApiKeyError(PROVIDER, ["OPENAI_API_KEY", "OPENROUTER_API_KEY"]);
  }
  throw new MissingApiKeyError(
    PROVIDER,
    ["OPENAI_API_KEY"],
    openrouterKey === undefined
      ? undefined
      : `OPENROUTER_API_KEY is set but is only sent to openrouter.ai, not to ${new URL(baseUrl).host}`,
  );
}

function isOpenAI(baseUrl: string): boolean {
  try {
    return new URL(baseUrl).hostname.toLowerCase() === "api.openai.com";
  } catch {
    return false;
  }
}

function isOpenRouter(baseUrl: string): boolean {
  try {
    const host = new URL(baseUrl).hostname.toLowerCase();
    return host === "openrouter.ai" || host.endsWith(".openrouter.ai");
  } catch {
    return false;
  }
}
