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
  RETRY_STATUSES,
  readEnv,
  refuseUrlCredentials,
  retryOptions,
  streamEvents,
  urlPath,
  userAgent,
} from "@toolnexus/provider-utils";
import { messagesRequestBody } from "./request.js";
import { parseMessage } from "./response.js";
import { MessageStreamAssembler } from "./stream.js";
import { VERSION } from "./version.js";

/** The Anthropic API, used when neither `baseUrl` nor `ANTHROPIC_BASE_URL` is set. */
export const ANTHROPIC_BASE_URL = "https://api.anthropic.com";

/** The `anthropic-version` header sent unless `headers` override it. */
export const ANTHROPIC_VERSION = "2023-06-01";

/** `max_tokens` when the options leave it out. */
export const DEFAULT_MAX_TOKENS = 4096;

/** Options of {@link anthropic}. */
export interface AnthropicOptions {
  /** The model name, e.g. `"claude-sonnet-4-5"` or `"claude-haiku-4-5"`. */
  model: string;
  /**
   * The API root; `/v1/messages` is appended (`/messages` when it already ends in `/v1`).
   * Defaults to `ANTHROPIC_BASE_URL` from the environment, else `https://api.anthropic.com`.
   */
  baseUrl?: string;
  /**
   * Sent as `x-api-key`. Defaults to `ANTHROPIC_API_KEY` from the environment, which is not
   * sent when `headers` carry their own `x-api-key`, `authorization` or `api-key` (in any letter
   * case). Not needed for a `baseUrl` on loopback.
   */
  apiKey?: string;
  /**
   * Extra headers on every request (e.g. `anthropic-beta`). Names are compared
   * case-insensitively and these win over the defaults, `user-agent` (default
   * `toolnexus-anthropic/<version> node/<version>`), `x-api-key` and `anthropic-version`
   * included.
   */
  headers?: Record<string, string>;
  /** The `fetch` to use; defaults to the global one. */
  fetch?: FetchFunction;
  /** `max_tokens` of every request. Default 4096. */
  maxTokens?: number;
  /**
   * Retries after the first attempt on 429, 500, 502, 503, 504, 529 (overloaded) and network
   * errors. Default 2.
   */
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
   * Extra body keys merged into every request (e.g. `tool_choice`, `stop_sequences`, `metadata`,
   * `thinking`). They win over the adapter's own keys, `system` and `max_tokens` included,
   * except `messages`, `tools` and `stream`.
   */
  requestParams?: Record<string, unknown>;
  /** The model's label in logs and `RunResult.model`. Default `"anthropic:<model>"`. */
  id?: string;
}

const PROVIDER = "anthropic";
/** `gen_ai.provider.name` in OpenTelemetry's GenAI conventions. */
const GENAI_PROVIDER = "anthropic";

/** Anthropic also answers 529 when it is overloaded. */
const STATUSES = [...RETRY_STATUSES, 529];

/**
 * A {@link Model} for the Anthropic Messages API (Claude). Use it as the `model` of
 * `createClient` from `@toolnexus/client`; point `baseUrl` at a proxy or gateway that speaks
 * the same API.
 *
 * Nothing is sent at construction; the API key is looked up at each call, so a missing key is
 * a {@link MissingApiKeyError} at the first call, naming `ANTHROPIC_API_KEY`.
 *
 * @example
 * import { anthropic } from "@toolnexus/anthropic";
 * const model = anthropic({ model: "claude-sonnet-4-5" }); // reads ANTHROPIC_API_KEY
 */
export function anthropic(options: AnthropicOptions): Model {
  if (typeof options?.model !== "string" || options.model.trim() === "") {
    throw new TypeError('anthropic: "model" must be a non-empty string, e.g. "claude-sonnet-4-5"');
  }
  const givenBaseUrl =
    options.baseUrl === undefined ? undefined : checkBaseUrl(PROVIDER, "baseUrl", options.baseUrl);
  // A base URL from the environment is read at each call, but credentials in it fail now.
  if (givenBaseUrl === undefined) {
    const env = readEnv("ANTHROPIC_BASE_URL");
    if (env !== undefined) refuseUrlCredentials(PROVIDER, "ANTHROPIC_BASE_URL", env);
  }
  const maxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS;
  if (!Number.isInteger(maxTokens) || maxTokens < 1) {
    throw new TypeError(`anthropic: maxTokens must be a whole number >= 1, got ${maxTokens}`);
  }
  const { retries, retryBaseMs, maxRetryDelayMs } = retryOptions(PROVIDER, options);
  const limits = limitOptions(PROVIDER, options);
  const model = options.model;
  const requestParams = { ...options.requestParams };
  const extraHeaders = mergeHeaders(options.headers);
  const agent = userAgent("toolnexus-anthropic", VERSION);

  const prepare = (signal: AbortSignal | undefined) => {
    const envBaseUrl = readEnv("ANTHROPIC_BASE_URL");
    const baseUrl =
      givenBaseUrl ??
      (envBaseUrl === undefined
        ? ANTHROPIC_BASE_URL
        : checkBaseUrl(PROVIDER, "ANTHROPIC_BASE_URL", envBaseUrl));
    const apiKey = resolveKey(options.apiKey, baseUrl, extraHeaders);
    const headers = mergeHeaders(
      { "content-type": "application/json", "anthropic-version": ANTHROPIC_VERSION },
      agent === undefined ? undefined : { "user-agent": agent },
      apiKey === undefined ? undefined : { "x-api-key": apiKey },
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
      retryStatuses: STATUSES,
      secrets,
    };
    return { url: messagesUrl(baseUrl), headers, signal, http };
  };

  return {
    id: options.id ?? `${PROVIDER}:${model}`,
    provider: GENAI_PROVIDER,

    async generate(request: ModelRequest, call?: ModelCallOptions): Promise<ModelResponse> {
      const { http, ...post } = prepare(call?.signal);
      const body = messagesRequestBody(model, maxTokens, request, requestParams, false);
      const json = await postJson({ ...post, body }, http);
      return parseMessage(json, http);
    },

    async *stream(request: ModelRequest, call?: ModelCallOptions): AsyncGenerator<ModelStreamPart> {
      const { http, ...post } = prepare(call?.signal);
      const body = messagesRequestBody(model, maxTokens, request, requestParams, true);
      const response = await postForStream({ ...post, body }, http);
      const assembler = new MessageStreamAssembler(http);
      for await (const event of streamEvents(response, call?.signal, http)) {
        yield* assembler.push(parseEventData(event, http));
        if (assembler.stopped) break;
      }
      yield* assembler.end();
    },
  };
}

/** `{baseUrl}/v1/messages`, or `{baseUrl}/messages` when the base URL already ends in `/v1`. */
export function messagesUrl(baseUrl: string): string {
  return joinUrl(baseUrl, urlPath(baseUrl).endsWith("/v1") ? "messages" : "v1/messages");
}

/**
 * The API key to send as `x-api-key`: the given one, else `ANTHROPIC_API_KEY` unless the
 * caller's headers carry their own credentials (a gateway's bearer token, an `x-api-key`).
 */
function resolveKey(
  givenKey: string | undefined,
  baseUrl: string,
  headers: Readonly<Record<string, string>>,
): string | undefined {
  if (givenKey !== undefined && givenKey !== "") return givenKey;
  if (hasCredentialHeader(headers)) return undefined;
  const key = readEnv("ANTHROPIC_API_KEY");
  if (key !== undefined) return key;
  if (isLoopbackUrl(baseUrl)) return undefined;
  throw new MissingApiKeyError(PROVIDER, ["ANTHROPIC_API_KEY"]);
}
