import { describe, expect, it } from 'vitest';
import { effectiveProvider, modelOptions } from './settings-form';

const catalog = {
  deployment: { provider: 'offline' as const, model: 'parley-offline' },
  offline: true,
  providers: [
    {
      provider: 'offline' as const,
      status: 'ready' as const,
      default_model: 'parley-offline',
      models: ['parley-offline'],
    },
    {
      provider: 'openai' as const,
      status: 'ready' as const,
      default_model: 'gpt-4o-mini',
      models: ['gpt-4o-mini', 'gpt-4o'],
    },
    {
      provider: 'anthropic' as const,
      status: 'not_configured' as const,
      default_model: 'claude',
      models: [],
    },
  ],
};
const t = (key: string, options?: Record<string, unknown>) =>
  `${key}${options ? JSON.stringify(options) : ''}`;

describe('bot model choice', () => {
  it('offers the service default, the offline answerer and the configured models only', () => {
    expect(modelOptions(catalog, '', t).map((o) => o.value)).toEqual([
      '',
      'offline',
      'openai:gpt-4o-mini',
      'openai:gpt-4o',
    ]);
  });

  it('keeps a bot value that is not offered, marked as not set up', () => {
    const options = modelOptions(catalog, 'anthropic:claude-sonnet-4-5', t);
    expect(options.at(-1)).toEqual({
      value: 'anthropic:claude-sonnet-4-5',
      label: 'bot.modelCurrent{"model":"anthropic:claude-sonnet-4-5"}',
    });
  });

  it('knows when the offline answerer answers, as the server reads the value', () => {
    expect(effectiveProvider('', catalog.deployment)).toBe('offline');
    expect(effectiveProvider('offline', catalog.deployment)).toBe('offline');
    expect(effectiveProvider('openai:gpt-4o', catalog.deployment)).toBe('openai');
    expect(effectiveProvider('llama3.1:8b', catalog.deployment)).toBe('offline');
    expect(effectiveProvider('', { provider: 'openai', model: 'gpt-4o' })).toBe('openai');
  });
});
