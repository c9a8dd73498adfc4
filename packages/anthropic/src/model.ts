import type { Model } from "@toolnexus/core";
import {
  defineHttpModel,
  type HttpModelOptions,
  joinUrl,
  RETRY_STATUSES,
  urlPath,
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
export interface AnthropicOptions extends HttpModelOptions {
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
  /** `max_tokens` of every request. Default 4096. */
  maxTokens?: number;
  /**
   * Retries after the first attempt on 429, 500, 502, 503, 504, 529 (overloaded) and network
   * errors. Default 2.
   */
  retries?: number;
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
  return messagesModel(options);
}

const messagesModel = defineHttpModel<AnthropicOptions>({
  provider: PROVIDER,
  genAiProvider: GENAI_PROVIDER,
  exampleModel: "claude-sonnet-4-5",
  userAgent: { product: "toolnexus-anthropic", version: VERSION },
  baseUrl: { env: "ANTHROPIC_BASE_URL", default: ANTHROPIC_BASE_URL },
  apiKey: { env: ["ANTHROPIC_API_KEY"], header: (apiKey) => ({ "x-api-key": apiKey }) },
  headers: { "anthropic-version": ANTHROPIC_VERSION },
  retryStatuses: STATUSES,
  check: (options) => {
    const maxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS;
    if (!Number.isInteger(maxTokens) || maxTokens < 1) {
      throw new TypeError(`anthropic: maxTokens must be a whole number >= 1, got ${maxTokens}`);
    }
  },
  url: (baseUrl) => messagesUrl(baseUrl),
  request: (request, { model, requestParams, stream, options }) =>
    messagesRequestBody(
      model,
      options.maxTokens ?? DEFAULT_MAX_TOKENS,
      request,
      requestParams,
      stream,
    ),
  response: parseMessage,
  stream: (context) => {
    const assembler = new MessageStreamAssembler(context);
    // Reading stops at `message_stop`: nothing after it belongs to this message.
    return {
      push: (data) => assembler.push(data),
      end: () => assembler.end(),
      get done() {
        return assembler.stopped;
      },
    };
  },
});

/** `{baseUrl}/v1/messages`, or `{baseUrl}/messages` when the base URL already ends in `/v1`. */
export function messagesUrl(baseUrl: string): string {
  return joinUrl(baseUrl, urlPath(baseUrl).endsWith("/v1") ? "messages" : "v1/messages");
}
