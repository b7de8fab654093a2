import type { Config, ModelProviderName } from '../../config.js';
import { anthropicProvider } from './anthropic.js';
import { OFFLINE_MODEL_NAME, offlineProvider } from './offline.js';
import { openAiProvider } from './openai.js';
import {
  ModelUnavailableError,
  type ModelProvider,
  type ModelReply,
  type ModelRequest,
  type ModelStreamEvent,
} from './provider.js';
import { chooseModel, type ModelChoice } from './select.js';
import { modelErrors, modelRequestDuration, modelTokens } from '../../observability/metrics.js';

type ModelLabels = { provider: string; model: string };

function countTokens(labels: ModelLabels, reply: ModelReply): void {
  modelTokens.inc({ ...labels, direction: 'input' }, reply.promptTokens);
  modelTokens.inc({ ...labels, direction: 'output' }, reply.completionTokens);
}

/** Duration, errors and tokens of one model call. */
async function observeModelCall(labels: ModelLabels, call: Promise<ModelReply>): Promise<ModelReply> {
  const end = modelRequestDuration.startTimer(labels);
  try {
    const reply = await call;
    countTokens(labels, reply);
    return reply;
  } catch (error) {
    modelErrors.inc(labels);
    throw error;
  } finally {
    end();
  }
}

/** The same for a stream: timed from the call to its last event. */
async function* observeModelStream(
  labels: ModelLabels,
  events: AsyncIterable<ModelStreamEvent>,
): AsyncIterable<ModelStreamEvent> {
  const end = modelRequestDuration.startTimer(labels);
  try {
    for await (const event of events) {
      if (event.type === 'done') countTokens(labels, event.reply);
      yield event;
    }
  } catch (error) {
    modelErrors.inc(labels);
    throw error;
  } finally {
    end();
  }
}

export const DEFAULT_OPENAI_MODEL = 'gpt-4o-mini';
export const DEFAULT_ANTHROPIC_MODEL = 'claude-haiku-4-5';

type ModelConfig = Config['model'];

/** Whether the deployment has what the provider needs to be called at all. */
function configured(provider: ModelProviderName, config: ModelConfig): boolean {
  if (provider === 'openai') return Boolean(config.openaiApiKey || config.openaiBaseUrl);
  if (provider === 'anthropic') return Boolean(config.anthropicApiKey);
  return true;
}

function build(provider: ModelProviderName, config: ModelConfig): ModelProvider {
  const deploymentModel = config.provider === provider ? config.name : undefined;
  if (provider === 'openai') {
    return openAiProvider({
      baseUrl: config.openaiBaseUrl,
      apiKey: config.openaiApiKey,
      defaultModel: deploymentModel ?? DEFAULT_OPENAI_MODEL,
      timeoutMs: config.timeoutMs,
      maxTokens: config.maxTokens,
    });
  }
  if (provider === 'anthropic') {
    return anthropicProvider({
      baseUrl: config.anthropicBaseUrl,
      apiKey: config.anthropicApiKey,
      defaultModel: deploymentModel ?? DEFAULT_ANTHROPIC_MODEL,
      timeoutMs: config.timeoutMs,
      maxTokens: config.maxTokens,
    });
  }
  return offlineProvider();
}

/**
 * The model provider of the deployment (MODEL_PROVIDER, MODEL_NAME), honouring each bot's
 * override in `request.model`. Providers are created on first use, so a bot that names an
 * unconfigured provider fails with a clear 503 instead of breaking start-up.
 */
export function createModelProvider(config: ModelConfig): ModelProvider {
  const deployment: ModelChoice = { provider: config.provider, model: config.name };
  const providers = new Map<ModelProviderName, ModelProvider>();

  const resolve = (request: ModelRequest): { provider: ModelProvider; request: ModelRequest } => {
    const choice = chooseModel(request.model, deployment);
    if (!configured(choice.provider, config)) {
      throw new ModelUnavailableError(`model provider ${choice.provider} is not configured`, choice.provider);
    }
    let provider = providers.get(choice.provider);
    if (!provider) {
      provider = build(choice.provider, config);
      providers.set(choice.provider, provider);
    }
    return { provider, request: { ...request, model: choice.model ?? null } };
  };

  const labels = (request: ModelRequest) => {
    const choice = chooseModel(request.model, deployment);
    return { provider: choice.provider, model: choice.model ?? 'default' };
  };

  const defaultModelOf = (provider: ModelProviderName): string => {
    if (provider === 'offline') return OFFLINE_MODEL_NAME;
    if (provider === config.provider && config.name) return config.name;
    return provider === 'openai' ? DEFAULT_OPENAI_MODEL : DEFAULT_ANTHROPIC_MODEL;
  };

  return {
    name: config.provider,
    describe(request) {
      const choice = chooseModel(request.model, deployment);
      return { provider: choice.provider, model: choice.model ?? defaultModelOf(choice.provider) };
    },
    generate(request) {
      try {
        const chosen = resolve(request);
        return observeModelCall(labels(request), chosen.provider.generate(chosen.request));
      } catch (error) {
        modelErrors.inc(labels(request));
        return Promise.reject(error);
      }
    },
    stream(request) {
      try {
        const chosen = resolve(request);
        return observeModelStream(labels(request), chosen.provider.stream(chosen.request));
      } catch (error) {
        modelErrors.inc(labels(request));
        throw error;
      }
    },
  };
}

/* The public surface of the models module: what other modules may import (see docs/ARCHITECTURE.md). */
export { NO_ANSWER_MARKER, noAnswerFilter, recogniseNoAnswer } from './no-answer.js';
export { bestSentence, coversTerm } from './offline.js';
export { ModelUnavailableError } from './provider.js';
export type { ModelProvider, ModelReply, ModelRequest, ModelStreamEvent, ModelMessage } from './provider.js';
export { questionNames, questionType } from './sentences.js';
