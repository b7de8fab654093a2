import { MODEL_PROVIDERS, type ModelProviderName } from '../../config.js';

export interface ModelChoice {
  provider: ModelProviderName;
  /** Model name for the provider; undefined means the provider's configured default. */
  model?: string;
}

/**
 * Reads a bot's model override against the deployment default.
 *
 * - empty / null          → deployment provider and model
 * - `offline`             → the built-in answerer
 * - `openai:gpt-4o-mini`  → that provider, that model (also `anthropic:…`, `offline:…`)
 * - `gpt-4o-mini`         → deployment provider, that model
 *
 * Only a known provider name counts as a prefix, so Ollama names such as `llama3.1:8b`
 * stay plain model names.
 */
export function chooseModel(override: string | null | undefined, deployment: ModelChoice): ModelChoice {
  const value = override?.trim();
  if (!value) return deployment;
  const colon = value.indexOf(':');
  const head = colon === -1 ? value : value.slice(0, colon);
  if ((MODEL_PROVIDERS as readonly string[]).includes(head)) {
    const model = colon === -1 ? undefined : value.slice(colon + 1).trim() || undefined;
    return { provider: head as ModelProviderName, model };
  }
  return { provider: deployment.provider, model: value };
}
