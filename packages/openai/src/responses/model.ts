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
  type HttpSettings,
  joinUrl,
  limitOptions,
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
import { GENAI_PROVIDER, type OpenAIOptions, resolveEndpoint } from "../model.js";
import { VERSION } from "../version.js";
import { responsesRequestBody } from "./request.js";
import { parseResponse } from "./response.js";
import { ResponsesStreamAssembler } from "./stream.js";

/** Options of {@link openaiResponses}: those of `openai`, with the same defaults. */
export type OpenAIResponsesOptions = OpenAIOptions;

const PROVIDER = "openai";

/**
 * A {@link Model} for OpenAI's **Responses** API (`POST {baseUrl}/responses`), the API the OpenAI
 * SDKs now steer users to: `input` items (messages, `function_call`, `function_call_output`),
 * `instructions`, function tools, streaming events, cached and reasoning token counts, and the
 * reasoning items of a reasoning model kept in `providerData["openai-responses"]` and sent back
 * with the turn. Same options, key and base-URL rules as `openai` (Chat Completions); the label
 * is `"openai-responses:<model>"`.
 *
 * Ask for `requestParams: { store: false, include: ["reasoning.encrypted_content"] }` to keep
 * nothing on OpenAI's side: the reasoning items then carry their encrypted content back.
 *
 * @example
 * import { openaiResponses } from "@toolnexus/openai";
 * const model = openaiResponses({ model: "gpt-5-mini" }); // reads OPENAI_API_KEY
 */
export function openaiResponses(options: OpenAIResponsesOptions): Model {
  if (typeof options?.model !== "string" || options.model.trim() === "") {
    throw new TypeError('openaiResponses: "model" must be a non-empty string, e.g. "gpt-5-mini"');
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
    return { url: joinUrl(baseUrl, "responses"), headers, signal, http };
  };

  return {
    id: options.id ?? `openai-responses:${model}`,
    provider: GENAI_PROVIDER,

    async generate(request: ModelRequest, call?: ModelCallOptions): Promise<ModelResponse> {
      const { http, ...post } = prepare(call?.signal);
      const body = responsesRequestBody(model, request, requestParams, false);
      const json = await postJson({ ...post, body }, http);
      return parseResponse(json, http);
    },

    async *stream(request: ModelRequest, call?: ModelCallOptions): AsyncGenerator<ModelStreamPart> {
      const { http, ...post } = prepare(call?.signal);
      const body = responsesRequestBody(model, request, requestParams, true);
      const response = await postForStream({ ...post, body }, http);
      const assembler = new ResponsesStreamAssembler(http);
      for await (const event of streamEvents(response, call?.signal, http)) {
        if (event.data.trim() === "[DONE]") break;
        yield* assembler.push(parseEventData(event, http));
        if (assembler.done) break;
      }
      yield* assembler.end();
    },
  };
}
