export type { FetchFunction, ProviderErrorCode } from "@toolnexus/provider-utils";
export {
  BaseUrlCredentialsError,
  MissingApiKeyError,
  ProviderError,
} from "@toolnexus/provider-utils";
export type { AnthropicOptions } from "./model.js";
export {
  ANTHROPIC_BASE_URL,
  ANTHROPIC_VERSION,
  anthropic,
  DEFAULT_MAX_TOKENS,
} from "./model.js";
