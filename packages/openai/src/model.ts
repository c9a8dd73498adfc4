import type {
  Model,
  ModelCallOptions,
  ModelRequest,
  ModelResponse,
  ModelStreamPart,
} from "@toolnexus/core";
import {
  credentialValues,
  type FetchFunction,
  type HttpSettings,
  hasCredentialHeader,
  isLoopbackUrl,
  joinUrl,
  MissingApiKeyError,
  parseEventData,
  postForStream,
  postJson,
  readEnv,
  retryOptions,
  streamEvents,
} from "@toolnexus/provider-utils";
import { chatRequestBody } from "./request.js";
import { parseChatCompletion } from "./response.js";
import { ChatStreamAssembler } from "./stream.js";

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
   * Sent as `Authorization: Bearer <apiKey>`. Defaults to `OPENAI_API_KEY`, then
   * `OPENROUTER_API_KEY` (the other way round when `baseUrl` is OpenRouter). Not needed for a
   * `baseUrl` on loopback, or when `headers` carry `authorization` / `api-key` themselves.
   */
  apiKey?: string;
  /** Extra headers on every request (e.g. OpenRouter's `HTTP-Referer`, an Azure `api-key`). */
  headers?: Record<string, string>;
  /** The `fetch` to use; defaults to the global one. */
  fetch?: FetchFunction;
  /** Retries after the first attempt on 429, 500, 502, 503, 504 and network errors. Default 2. */
  retries?: number;
  /** Base of the exponential backoff between retries, in ms. Default 500. */
  retryBaseMs?: number;
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
  if (options.baseUrl !== undefined && !URL.canParse(options.baseUrl)) {
    throw new TypeError(`openai: "baseUrl" is not a valid URL: ${options.baseUrl}`);
  }
  const { retries, retryBaseMs } = retryOptions(PROVIDER, options);
  const model = options.model;
  const requestParams = { ...options.requestParams };
  const extraHeaders = { ...options.headers };

  const prepare = (signal: AbortSignal | undefined) => {
    const { baseUrl, apiKey } = resolveEndpoint(options);
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (apiKey !== undefined) headers.authorization = `Bearer ${apiKey}`;
    Object.assign(headers, extraHeaders);
    const secrets = [...(apiKey === undefined ? [] : [apiKey]), ...credentialValues(headers)];
    const http: HttpSettings = {
      provider: PROVIDER,
      fetch: options.fetch,
      retries,
      retryBaseMs,
      secrets,
    };
    return { url: joinUrl(baseUrl, "chat/completions"), headers, signal, http };
  };

  return {
    id: options.id ?? `${PROVIDER}:${model}`,

    async generate(request: ModelRequest, call?: ModelCallOptions): Promise<ModelResponse> {
      const { http, ...post } = prepare(call?.signal);
      const body = chatRequestBody(model, request, requestParams, false);
      const json = await postJson({ ...post, body }, http);
      return parseChatCompletion(json, http);
    },

    async *stream(request: ModelRequest, call?: ModelCallOptions): AsyncGenerator<ModelStreamPart> {
      const { http, ...post } = prepare(call?.signal);
      const body = chatRequestBody(model, request, requestParams, true);
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

function resolveEndpoint(options: OpenAIOptions): { baseUrl: string; apiKey: string | undefined } {
  const openaiKey = readEnv("OPENAI_API_KEY");
  const openrouterKey = readEnv("OPENROUTER_API_KEY");
  const baseUrl =
    options.baseUrl ??
    readEnv("OPENAI_BASE_URL") ??
    (openaiKey === undefined && openrouterKey !== undefined
      ? OPENROUTER_BASE_URL
      : OPENAI_BASE_URL);
  if (options.apiKey !== undefined && options.apiKey !== "") {
    return { baseUrl, apiKey: options.apiKey };
  }
  // Prefer the variable that belongs to the host, so an OpenRouter key is not sent to OpenAI.
  const openRouterHost = isOpenRouter(baseUrl);
  const apiKey = openRouterHost ? (openrouterKey ?? openaiKey) : (openaiKey ?? openrouterKey);
  if (apiKey !== undefined) return { baseUrl, apiKey };
  if (isLoopbackUrl(baseUrl) || hasCredentialHeader(options.headers ?? {})) {
    return { baseUrl, apiKey: undefined };
  }
  throw new MissingApiKeyError(
    PROVIDER,
    openRouterHost
      ? ["OPENROUTER_API_KEY", "OPENAI_API_KEY"]
      : ["OPENAI_API_KEY", "OPENROUTER_API_KEY"],
  );
}

function isOpenRouter(baseUrl: string): boolean {
  try {
    const host = new URL(baseUrl).hostname.toLowerCase();
    return host === "openrouter.ai" || host.endsWith(".openrouter.ai");
  } catch {
    return false;
  }
}
