import type { Bot, BotPatch, Ok } from '../../api/types';
import { modelLabel } from '../../labels';

export function formValues(bot: Bot) {
  return {
    name: bot.name,
    description: bot.description ?? '',
    kind: bot.kind,
    knowledge_strictness: bot.knowledge_strictness,
    knowledge_min_score: bot.knowledge_min_score ?? '',
    emoji_usage: bot.emoji_usage,
    formal_address: bot.formal_address,
    industry_code: bot.industry_code ?? '',
    model: bot.model ?? '',
    channels: bot.channels,
  };
}

export type Values = ReturnType<typeof formValues>;

export function toPatch(values: Values): BotPatch {
  return {
    name: values.name.trim(),
    description: values.description.trim() || null,
    kind: values.kind,
    knowledge_strictness: values.knowledge_strictness,
    knowledge_min_score: values.knowledge_min_score === '' ? null : Number(values.knowledge_min_score),
    emoji_usage: values.emoji_usage,
    formal_address: values.formal_address,
    industry_code: values.industry_code.trim() || null,
    model: values.model.trim() || null,
    channels: values.channels as BotPatch['channels'],
  };
}

export type Catalog = Ok<'/api/models', 'get'>;

/** The provider a bot's `model` value resolves to (as the server's chooseModel reads it). */
export function effectiveProvider(model: string, deployment: Catalog['deployment']): string {
  const value = model.trim();
  if (!value) return deployment.provider;
  const head = value.split(':')[0]!;
  return ['offline', 'openai', 'anthropic'].includes(head) ? head : deployment.provider;
}

/** The model options the service has configured, with the bot's own value kept if set otherwise. */
export function modelOptions(
  catalog: Catalog,
  current: string,
  t: (key: string, options?: Record<string, unknown>) => string,
) {
  const options = [
    {
      value: '',
      label: t('bot.modelDefault', {
        model:
          catalog.deployment.provider === 'offline'
            ? t('bot.modelOffline')
            : modelLabel(`${catalog.deployment.provider}:${catalog.deployment.model}`, t),
      }),
    },
    ...catalog.providers.flatMap((p) =>
      p.models.map((model) => ({
        value: p.provider === 'offline' ? 'offline' : `${p.provider}:${model}`,
        label: p.provider === 'offline' ? t('bot.modelOffline') : modelLabel(`${p.provider}:${model}`, t),
      })),
    ),
  ];
  if (current.trim() && !options.some((o) => o.value === current.trim())) {
    options.push({ value: current.trim(), label: t('bot.modelCurrent', { model: current.trim() }) });
  }
  return options;
}
