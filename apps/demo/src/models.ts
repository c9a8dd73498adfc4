// Which model drives the demo: the embedded scripted one (default: no network, no key), or a
// real endpoint through a toolnexus adapter, with the same tools.
import { anthropic } from "@toolnexus/anthropic";
import type { Model } from "@toolnexus/core";
import { openai } from "@toolnexus/openai";
import { SCRIPTED_MODEL_ID, scriptedReleaseModel } from "./director.js";

export type Provider = "scripted" | "openai" | "anthropic";

export interface ModelChoice {
  provider: Provider;
  model?: string;
  baseUrl?: string;
}

/** A problem with the model flags or the adapter: the CLI prints it and exits with status 2. */
export class ModelSetupError extends Error {}

const DEFAULT_MODELS: Record<Exclude<Provider, "scripted">, string> = {
  openai: "gpt-4o-mini",
  anthropic: "claude-sonnet-4-5",
};

/**
 * Reads the choice from flags, then environment variables. A `--base-url` or `--model` without
 * a provider means an OpenAI-compatible endpoint (Ollama, vLLM, OpenRouter, ...).
 */
export function chooseModel(
  flags: { provider?: string; model?: string; baseUrl?: string },
  env: NodeJS.ProcessEnv,
): ModelChoice {
  const baseUrl = flags.baseUrl ?? (env.TOOLNEXUS_DEMO_BASE_URL || undefined);
  const model = flags.model ?? (env.TOOLNEXUS_DEMO_MODEL || undefined);
  const named = flags.provider ?? (env.TOOLNEXUS_DEMO_PROVIDER || undefined);
  const provider = named ?? (baseUrl !== undefined || model !== undefined ? "openai" : "scripted");
  if (provider !== "scripted" && provider !== "openai" && provider !== "anthropic") {
    throw new ModelSetupError(
      `unknown provider "${provider}": use openai (and OpenAI-compatible servers), anthropic, or scripted`,
    );
  }
  const choice: ModelChoice = { provider };
  if (model !== undefined) choice.model = model;
  if (baseUrl !== undefined) choice.baseUrl = baseUrl;
  return choice;
}

/** Builds the chosen model. Adapters read their API keys from the environment at each call. */
export function createModel(choice: ModelChoice): Model {
  if (choice.provider === "scripted") return scriptedReleaseModel();
  const model = choice.model ?? DEFAULT_MODELS[choice.provider];
  const baseUrl = choice.baseUrl === undefined ? {} : { baseUrl: choice.baseUrl };
  try {
    return choice.provider === "openai"
      ? openai({ model, ...baseUrl })
      : anthropic({ model, ...baseUrl });
  } catch (cause) {
    throw new ModelSetupError(cause instanceof Error ? cause.message : String(cause));
  }
}

/** A one-line description of the model for the banner. */
export function describeModel(choice: ModelChoice, model: Model): string {
  if (choice.provider === "scripted") {
    return `${SCRIPTED_MODEL_ID} (embedded and deterministic; --provider openai|anthropic for a real one)`;
  }
  return `${model.id}${choice.baseUrl === undefined ? "" : ` at ${choice.baseUrl}`}`;
}
