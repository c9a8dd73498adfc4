export type { FetchFunction, ProviderErrorCode } from "@toolnexus/provider-utils";
export {
  BaseUrlCredentialsError,
  MissingApiKeyError,
  ProviderError,
} from "@toolnexus/provider-utils";
export type { GoogleOptions } from "./model.js";
export { GEMINI_BASE_URL, google } from "./model.js";
export type { GoogleProviderData } from "./request.js";
