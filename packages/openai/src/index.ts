export type { FetchFunction, ProviderErrorCode } from "@toolnexus/provider-utils";
export {
  BaseUrlCredentialsError,
  MissingApiKeyError,
  ProviderError,
} from "@toolnexus/provider-utils";
export type { OpenAIOptions } from "./model.js";
export { OPENAI_BASE_URL, OPENROUTER_BASE_URL, openai } from "./model.js";
export type { OpenAIResponsesOptions } from "./responses/model.js";
export { openaiResponses } from "./responses/model.js";
export type { ResponsesProviderData } from "./responses/request.js";
