import type {
  Model,
  ModelCallOptions,
  ModelRequest,
  ModelResponse,
  ModelStreamPart,
} from "@toolnexus/core";
import { resolveApiKey } from "./api-key.js";
import { mergeHeaders, userAgent } from "./headers.js";
import {
  type FetchFunction,
  type HttpSettings,
  parseEventData,
  postForStream,
  postJson,
  streamEventBatches,
} from "./http.js";
import { limitOptions } from "./limits.js";
import type { ParseContext } from "./parse.js";
import { credentialValues } from "./redact.js";
import { retryOptions } from "./retry.js";
import { checkBaseUrl, readEnv, refuseUrlCredentials } from "./url.js";

/**
 * The options every HTTP model adapter takes (an adapter's own options extend these). The
 * adapter documents `baseUrl`, `apiKey` and `headers` itself: their defaults are its own.
 */
export interface HttpModelOptions {
  /** The model name the server knows. */
  model: string;
  /** The API root; defaults to the adapter's environment variable, else its public API. */
  baseUrl?: string;
  /** The API key; defaults to the adapter's environment variables. Not needed on loopback. */
  apiKey?: string;
  /** Extra headers on every request; names compared case-insensitively, these win. */
  headers?: Record<string, string>;
  /** The `fetch` to use; defaults to the global one. */
  fetch?: FetchFunction;
  /** Retries after the first attempt on 429, 500, 502, 503, 504 and network errors. Default 2. */
  retries?: number;
  /** Base of the exponential backoff between retries, in ms. Default 500. */
  retryBaseMs?: number;
  /**
   * The longest wait before a retry, in ms, whatever the server asks for in `retry-after-ms` or
   * `Retry-After` (a `Retry-After: 3600` must not stall a run for an hour). Default 60000; at
   * most 2^31 - 1 (about 24.8 days, the longest timer), a larger value is a TypeError.
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
   * The largest answer, in bytes: a non-streamed body, or a streamed one counted over all its
   * events (every byte of the stream). A larger one is a `ProviderError` of code
   * `"provider_limit"`, without reading it whole; a stream has yielded its parts up to there.
   * Default 64 MiB.
   */
  maxResponseBytes?: number;
  /** Extra body keys merged into every request; they win over most of the adapter's own. */
  requestParams?: Record<string, unknown>;
  /** The model's label in logs and `RunResult.model`. Default `"<provider>:<model>"`. */
  id?: string;
}

/** What the request mapper of one call gets besides the request. */
export interface HttpModelCall<O extends HttpModelOptions> {
  /** The model name, after the adapter's `modelName`. */
  model: string;
  /** A copy of `requestParams`, taken at construction. */
  requestParams: Record<string, unknown>;
  /** True for `stream`, false for `generate`. */
  stream: boolean;
  /** The base URL of this call. */
  baseUrl: string;
  /** The options the model was built with (for an adapter's own, e.g. `maxTokens`). */
  options: O;
}

/** Folds the parsed events of one streamed answer into stream parts, one assembler per call. */
export interface StreamMapper {
  /** The parts one event adds. */
  push(data: unknown): Iterable<ModelStreamPart>;
  /** The parts once the events end (the finish part); `sawDoneMarker` says the marker came. */
  end(sawDoneMarker: boolean): Iterable<ModelStreamPart>;
  /** True once the answer is complete: no further event is read. */
  readonly done?: boolean;
}

/** An adapter, as {@link defineHttpModel} builds it: who it is, where it goes, its mappers. */
export interface HttpModelSpec<O extends HttpModelOptions> {
  /** The adapter's name in errors (`ProviderError.provider`), e.g. `"openai"`. */
  provider: string;
  /** `gen_ai.provider.name` in OpenTelemetry's GenAI conventions, e.g. `"gcp.gemini"`. */
  genAiProvider: string;
  /** The factory's name in a bad-option TypeError; default `provider`. */
  factory?: string;
  /** A model name for the TypeError of a missing `model`, e.g. `"gpt-4o-mini"`. */
  exampleModel: string;
  /** The prefix of the default id `<idPrefix>:<model>`; default `provider`. */
  idPrefix?: string;
  /** The `user-agent` product and version, e.g. `toolnexus-openai` and the package version. */
  userAgent: { product: string; version: string };
  /** The environment variable read for the base URL at each call, and the default one. */
  baseUrl: { env: string; default: string };
  /**
   * The environment variables read for the key at each call (the first set wins), the headers
   * that send it, and the provider's own key headers besides `authorization`, `api-key` and
   * `x-api-key` (a caller's value there means no key is added).
   */
  apiKey: {
    env: readonly string[];
    header(apiKey: string): Record<string, string>;
    keyHeaders?: readonly string[];
  };
  /**
   * Replaces the base URL and key rules above, for a provider with its own (OpenAI's: the
   * OpenRouter key goes only to OpenRouter). Gets the checked `baseUrl` option.
   */
  endpoint?(given: {
    baseUrl: string | undefined;
    apiKey: string | undefined;
    headers: Readonly<Record<string, string>>;
  }): { baseUrl: string; apiKey: string | undefined };
  /** Headers of the API itself (e.g. `anthropic-version`); the caller's `headers` win. */
  headers?: Record<string, string>;
  /** Statuses worth retrying, when not the default 429, 500, 502, 503, 504. */
  retryStatuses?: readonly number[];
  /** Wraps the caller's `fetch` (e.g. to reshape a provider's error bodies). */
  wrapFetch?(
    fetch: FetchFunction | undefined,
    settings: { maxErrorBodyBytes: number; secrets: readonly string[] },
  ): FetchFunction;
  /** Normalizes the `model` option (e.g. drops a `models/` prefix); default as given. */
  modelName?(model: string): string;
  /** Checks the adapter's own options at construction; throw a TypeError naming a bad one. */
  check?(options: O): void;
  /** The URL of one call. */
  url(baseUrl: string, call: { model: string; stream: boolean }): string;
  /** The request mapper: the JSON body of one call. */
  request(request: ModelRequest, call: HttpModelCall<O>): unknown;
  /** The response mapper: a non-streamed answer as a {@link ModelResponse}. */
  response(json: unknown, context: ParseContext): ModelResponse;
  /** The stream mapper of one streamed call. */
  stream(context: ParseContext): StreamMapper;
  /** The event data that ends a stream without being parsed (e.g. `"[DONE]"`). */
  doneMarker?: string;
}

/**
 * Builds a model adapter from its mappers: the skeleton every HTTP adapter shares. The factory
 * it returns checks the options at construction (a `model` name, the base URL and the one in the
 * environment refused with credentials in them, retry and size options) and sends nothing then;
 * each call reads the key and the base URL from the environment afresh (a missing key is a
 * `MissingApiKeyError` at that call, none needed on loopback), merges the headers (the caller's
 * win, `user-agent` included), keeps the key and credential headers out of every error, and
 * posts through {@link postJson} / {@link postForStream} (retries, same-origin redirects only,
 * size caps).
 *
 * @example
 * export const myModel = defineHttpModel<MyOptions>({
 *   provider: "my", genAiProvider: "my", exampleModel: "my-small",
 *   userAgent: { product: "toolnexus-my", version: VERSION },
 *   baseUrl: { env: "MY_BASE_URL", default: "https://api.my.example/v1" },
 *   apiKey: { env: ["MY_API_KEY"], header: (key) => ({ authorization: `Bearer ${key}` }) },
 *   url: (baseUrl) => joinUrl(baseUrl, "chat"),
 *   request: (request, call) => myBody(call.model, request, call.requestParams, call.stream),
 *   response: parseMyAnswer,
 *   stream: (context) => new MyStreamAssembler(context),
 * });
 */
export function defineHttpModel<O extends HttpModelOptions>(
  spec: HttpModelSpec<O>,
): (options: O) => Model {
  const { provider } = spec;
  const factory = spec.factory ?? provider;
  return (options) => {
    if (typeof options?.model !== "string" || options.model.trim() === "") {
      throw new TypeError(
        `${factory}: "model" must be a non-empty string, e.g. "${spec.exampleModel}"`,
      );
    }
    const givenBaseUrl =
      options.baseUrl === undefined
        ? undefined
        : checkBaseUrl(provider, "baseUrl", options.baseUrl);
    // A base URL from the environment is read at each call, but credentials in it fail now.
    if (givenBaseUrl === undefined) {
      const env = readEnv(spec.baseUrl.env);
      if (env !== undefined) refuseUrlCredentials(provider, spec.baseUrl.env, env);
    }
    spec.check?.(options);
    const { retries, retryBaseMs, maxRetryDelayMs } = retryOptions(provider, options);
    const limits = limitOptions(provider, options);
    const model = spec.modelName?.(options.model) ?? options.model;
    const requestParams = { ...options.requestParams };
    const extraHeaders = mergeHeaders(options.headers);
    const agent = userAgent(spec.userAgent.product, spec.userAgent.version);

    const endpoint = (): { baseUrl: string; apiKey: string | undefined } => {
      if (spec.endpoint !== undefined) {
        return spec.endpoint({
          baseUrl: givenBaseUrl,
          apiKey: options.apiKey,
          headers: extraHeaders,
        });
      }
      const env = readEnv(spec.baseUrl.env);
      const baseUrl =
        givenBaseUrl ??
        (env === undefined ? spec.baseUrl.default : checkBaseUrl(provider, spec.baseUrl.env, env));
      const apiKey = resolveApiKey({
        provider,
        given: options.apiKey,
        env: spec.apiKey.env,
        headers: extraHeaders,
        keyHeaders: spec.apiKey.keyHeaders,
        baseUrl,
      });
      return { baseUrl, apiKey };
    };

    /** Everything one call needs, resolved at that call. */
    const prepare = (request: ModelRequest, stream: boolean, signal: AbortSignal | undefined) => {
      const { baseUrl, apiKey } = endpoint();
      const headers = mergeHeaders(
        { "content-type": "application/json" },
        spec.headers,
        agent === undefined ? undefined : { "user-agent": agent },
        apiKey === undefined ? undefined : spec.apiKey.header(apiKey),
        extraHeaders,
      );
      const secrets = [...(apiKey === undefined ? [] : [apiKey]), ...credentialValues(headers)];
      const http: HttpSettings = {
        provider,
        fetch:
          spec.wrapFetch === undefined
            ? options.fetch
            : spec.wrapFetch(options.fetch, {
                maxErrorBodyBytes: limits.maxErrorBodyBytes,
                secrets,
              }),
        retries,
        retryBaseMs,
        maxRetryDelayMs,
        ...limits,
        secrets,
      };
      if (spec.retryStatuses !== undefined) http.retryStatuses = spec.retryStatuses;
      const url = spec.url(baseUrl, { model, stream });
      const body = spec.request(request, { model, requestParams, stream, baseUrl, options });
      return { post: { url, headers, signal, body }, http };
    };

    return {
      id: options.id ?? `${spec.idPrefix ?? provider}:${model}`,
      provider: spec.genAiProvider,

      async generate(request: ModelRequest, call?: ModelCallOptions): Promise<ModelResponse> {
        const { post, http } = prepare(request, false, call?.signal);
        return spec.response(await postJson(post, http), http);
      },

      async *stream(
        request: ModelRequest,
        call?: ModelCallOptions,
      ): AsyncGenerator<ModelStreamPart> {
        const { post, http } = prepare(request, true, call?.signal);
        const response = await postForStream(post, http);
        const mapper = spec.stream(http);
        let sawDoneMarker = false;
        let ended = false;
        // A chunk's events at a time: one await per network chunk, not per event. Deltas that
        // arrived in the same chunk reach the reader as one part (see coalesceDeltas).
        for await (const events of streamEventBatches(response, call?.signal, http)) {
          const parts: ModelStreamPart[] = [];
          // An event that fails the stream (the provider's error event, bad JSON) must not take
          // the parts before it in the same chunk with it: they are yielded, then it is thrown.
          let failure: { thrown: unknown } | undefined;
          try {
            for (const event of events) {
              if (spec.doneMarker !== undefined && event.data.trim() === spec.doneMarker) {
                sawDoneMarker = true;
                ended = true;
                break;
              }
              coalesceDeltas(parts, mapper.push(parseEventData(event, http)));
              if (mapper.done === true) {
                ended = true;
                break;
              }
            }
          } catch (thrown) {
            failure = { thrown };
          }
          for (const part of parts) yield part;
          if (failure !== undefined) throw failure.thrown;
          if (ended) break;
        }
        for (const part of mapper.end(sawDoneMarker)) yield part;
      },
    };
  };
}

/**
 * Appends `parts` to `into`, joining a text or reasoning delta onto the one before it when it
 * has the same type. The events of one network chunk arrived together, so a reader loses no
 * time when they come as one part, and it does far less work: a burst of thousands of small
 * deltas cost more in per-part iteration than in parsing.
 */
export function coalesceDeltas(into: ModelStreamPart[], parts: Iterable<ModelStreamPart>): void {
  for (const part of parts) {
    const last = into[into.length - 1];
    if (
      (part.type === "text" || part.type === "reasoning") &&
      (last?.type === "text" || last?.type === "reasoning") &&
      last.type === part.type
    ) {
      into[into.length - 1] = { type: part.type, delta: last.delta + part.delta };
    } else {
      into.push(part);
    }
  }
}
