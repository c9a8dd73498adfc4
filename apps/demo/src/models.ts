// Which model drives the demo: the embedded scripted one (default: no network, no key), or a
// real endpoint through a toolnexus adapter, with the same tools.
import type { Model } from "@toolnexus/core";
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
  anthropic: "claude-3-5-haiku-latest",
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

type AdapterFactory = (options: { model: string; baseUrl?: string }) => Model;

/** Loads `@toolnexus/<provider>` on demand, so the default demo never loads an HTTP adapter. */
async function loadAdapter(provider: "openai" | "anthropic"): Promise<AdapterFactory> {
  const specifier = `@toolnexus/${provider}`;
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(specifier)) as Record<string, unknown>;
  } catch (cause) {
    throw new ModelSetupError(
      `--provider ${provider} needs the ${specifier} adapter, which is not installed in this workspace yet (${cause instanceof Error ? cause.message.split("\n")[0] : String(cause)}); the scripted model works without it`,
    );
  }
  const factory = loaded[provider];
  if (typeof factory !== "function") {
    throw new ModelSetupError(`${specifier} does not export ${provider}()`);
  }
  return factory as AdapterFactory;
}

export async function createModel(choice: ModelChoice): Promise<Model> {
  if (choice.provider === "scripted") return scriptedReleaseModel();
  const factory = await loadAdapter(choice.provider);
  const options: { model: string; baseUrl?: string } = {
    model: choice.model ?? DEFAULT_MODELS[choice.provider],
  };
  if (choice.baseUrl !== undefined) options.baseUrl = choice.baseUrl;
  try {
    return factory(options);
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
