import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { MODEL_PROVIDERS, type Config, type ModelProviderName } from '../../config.js';
import type { AppContext } from '../../shared/context.js';
import { requireUser } from '../auth/index.js';
import { SESSION_SECURITY, errorResponses } from '../../http/schemas.js';
import { DEFAULT_ANTHROPIC_MODEL, DEFAULT_OPENAI_MODEL } from './index.js';
import { OFFLINE_MODEL_NAME } from './offline.js';

const Provider = Type.Union(MODEL_PROVIDERS.map((name) => Type.Literal(name)));

export const ModelCatalog = Type.Object(
  {
    deployment: Type.Object(
      { provider: Provider, model: Type.String() },
      { description: 'What a bot without its own `model` uses (MODEL_PROVIDER, MODEL_NAME)' },
    ),
    offline: Type.Boolean({
      description:
        'true when the deployment answers with the built-in offline answerer, not a language model',
    }),
    providers: Type.Array(
      Type.Object({
        provider: Provider,
        status: Type.Union([Type.Literal('ready'), Type.Literal('not_configured')], {
          description: '`not_configured`: the deployment lacks the key or address this provider needs',
        }),
        default_model: Type.String(),
        models: Type.Array(Type.String(), {
          description:
            'Model names a bot can choose, as `provider:model` in its `model` field; empty when not configured',
        }),
      }),
    ),
  },
  { title: 'ModelCatalog' },
);
export type ModelCatalog = Static<typeof ModelCatalog>;

/** Well-known models offered for the public APIs; a custom OPENAI_BASE_URL offers its configured model only. */
const SUGGESTED: Record<Exclude<ModelProviderName, 'offline'>, string[]> = {
  openai: [DEFAULT_OPENAI_MODEL, 'gpt-4o', 'gpt-4.1-mini', 'gpt-4.1'],
  anthropic: [DEFAULT_ANTHROPIC_MODEL, 'claude-sonnet-4-5'],
};

/** The providers this deployment can call, their models and status. Never names keys or addresses. */
export function modelCatalog(config: Config['model']): ModelCatalog {
  const defaultOf = (provider: ModelProviderName): string => {
    if (provider === 'offline') return OFFLINE_MODEL_NAME;
    if (provider === config.provider && config.name) return config.name;
    return provider === 'openai' ? DEFAULT_OPENAI_MODEL : DEFAULT_ANTHROPIC_MODEL;
  };
  const ready = (provider: ModelProviderName): boolean => {
    if (provider === 'openai') return Boolean(config.openaiApiKey || config.openaiBaseUrl);
    if (provider === 'anthropic') return Boolean(config.anthropicApiKey);
    return true;
  };
  const modelsOf = (provider: ModelProviderName): string[] => {
    if (!ready(provider)) return [];
    if (provider === 'offline') return [OFFLINE_MODEL_NAME];
    const own = defaultOf(provider);
    const suggested = provider === 'openai' && config.openaiBaseUrl ? [] : SUGGESTED[provider];
    return [...new Set([own, ...suggested])];
  };
  return {
    deployment: { provider: config.provider, model: defaultOf(config.provider) },
    offline: config.provider === 'offline',
    providers: MODEL_PROVIDERS.map((provider) => ({
      provider,
      status: ready(provider) ? ('ready' as const) : ('not_configured' as const),
      default_model: defaultOf(provider),
      models: modelsOf(provider),
    })),
  };
}

/** Dashboard: which models a bot can be set to (session auth, bot:edit). */
export const modelRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/api/models',
    {
      onRequest: requireUser(ctx, 'bot:edit'),
      schema: {
        operationId: 'listModels',
        tags: ['dashboard: bots'],
        summary: 'The model providers this service has configured, their models and status',
        security: SESSION_SECURITY,
        response: { 200: ModelCatalog, ...errorResponses(401, 403) },
      },
    },
    async () => modelCatalog(ctx.config.model),
  );
};
