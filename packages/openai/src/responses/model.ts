import type { Model } from "@toolnexus/core";
import { defineHttpModel, joinUrl } from "@toolnexus/provider-utils";
import { OPENAI_SPEC, type OpenAIOptions } from "../model.js";
import { responsesRequestBody } from "./request.js";
import { parseResponse } from "./response.js";
import { ResponsesStreamAssembler } from "./stream.js";

/** Options of {@link openaiResponses}: those of `openai`, with the same defaults. */
export type OpenAIResponsesOptions = OpenAIOptions;

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
  return responsesModel(options);
}

const responsesModel = defineHttpModel<OpenAIResponsesOptions>({
  ...OPENAI_SPEC,
  factory: "openaiResponses",
  exampleModel: "gpt-5-mini",
  idPrefix: "openai-responses",
  url: (baseUrl) => joinUrl(baseUrl, "responses"),
  request: (request, { model, requestParams, stream }) =>
    responsesRequestBody(model, request, requestParams, stream),
  response: (json, context) => parseResponse(json, context),
  // The stream ends at `response.completed` (or `[DONE]` from a compatible server).
  stream: (context) => new ResponsesStreamAssembler(context),
  doneMarker: "[DONE]",
});
