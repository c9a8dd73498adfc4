import type { Model } from "@toolnexus/core";
import {
  checkBaseUrl,
  defineHttpModel,
  type HttpModelOptions,
  type HttpModelSpec,
  hasCredentialHeader,
  isLoopbackUrl,
  joinUrl,
  MissingApiKeyError,
  readEnv,
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
export interface OpenAIOptions extends HttpModelOptions {
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
  return chatModel(options);
}

/** What both OpenAI APIs share: names, and the key and base URL rules of {@link resolveEndpoint}. */
export const OPENAI_SPEC: Pick<
  HttpModelSpec<OpenAIOptions>,
  "provider" | "genAiProvider" | "userAgent" | "baseUrl" | "apiKey" | "endpoint"
> = {
  provider: PROVIDER,
  genAiProvider: GENAI_PROVIDER,
  userAgent: { product: "toolnexus-openai", version: VERSION },
  baseUrl: { env: "OPENAI_BASE_URL", default: OPENAI_BASE_URL },
  apiKey: { env: ["OPENAI_API_KEY"], header: (apiKey) => ({ authorization: `Bearer ${apiKey}` }) },
  endpoint: ({ baseUrl, apiKey, headers }) => resolveEndpoint(baseUrl, apiKey, headers),
};

const chatModel = defineHttpModel<OpenAIOptions>({
  ...OPENAI_SPEC,
  exampleModel: "gpt-4o-mini",
  url: (baseUrl) => joinUrl(baseUrl, "chat/completions"),
  request: (request, { model, requestParams, stream, baseUrl }) =>
    chatRequestBody(model, request, requestParams, stream, maxTokensKey(baseUrl)),
  response: parseChatCompletion,
  stream: (context) => new ChatStreamAssembler(context),
  doneMarker: "[DONE]",
});

/** OpenAI itself takes `max_completion_tokens`; compatible servers still read `max_tokens`. */
function maxTokensKey(baseUrl: string): MaxTokensKey {
  return isOpenAI(baseUrl) ? "max_completion_tokens" : "max_tokens";
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
