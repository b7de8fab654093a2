import { describe, expect, it } from 'vitest';
import de from './i18n/de.json';
import en from './i18n/en.json';
import { channelLabel, customerLabel, customerName, modelLabel, senderLabel } from './labels';

const CHANNELS = ['api', 'widget', 'email', 'test', 'whatsapp', 'sms', 'voice'];
const ROLES = ['owner', 'admin', 'editor', 'viewer', 'agent'];
const STATUSES = ['active', 'handed_over', 'ended'];
const t = (key: string, options?: Record<string, unknown>) =>
  `${key}${options?.defaultValue ? `|${String(options.defaultValue)}` : ''}`;

describe('words for codes', () => {
  it.each([
    ['de', de],
    ['en', en],
  ])('%s: every channel, role and conversation status has a label', (_, texts) => {
    const labels = texts as unknown as Record<string, Record<string, unknown>>;
    for (const channel of CHANNELS) expect(labels.channels![channel], channel).toEqual(expect.any(String));
    for (const role of ROLES) expect(labels.roles![role], role).toEqual(expect.any(String));
    const statuses = (labels.conversations!.statuses ?? {}) as Record<string, unknown>;
    for (const status of STATUSES) expect(statuses[status], status).toEqual(expect.any(String));
    for (const person of ['visitor', 'caller', 'sender', 'customer'])
      expect((labels.people as Record<string, unknown>)[person]).toEqual(expect.any(String));
  });

  it.each([
    ['claude-haiku-4-5-20251001', 'Claude Haiku 4.5'],
    ['anthropic:claude-sonnet-4-5', 'Claude Sonnet 4.5 (Anthropic)'],
    ['openai:gpt-4o-mini', 'GPT 4o Mini (OpenAI)'],
    ['offline', 'bot.modelOffline'],
  ])('model %s → %s', (model, label) => {
    expect(modelLabel(model, t)).toBe(label);
  });

  it('names visitors, callers and unknown channels in words', () => {
    const tagged = (key: string, options?: Record<string, unknown>) =>
      key === 'people.visitorTag' ? `Besucher ${String(options?.tag)}` : key;
    expect(senderLabel('wv_3F9a2c7d', tagged)).toBe('Besucher 3f9a');
    expect(senderLabel('wv_', tagged)).toBe('people.visitor');
    expect(customerName({ customer_name: 'Erika', sender_id: 'wv_3f9a' }, tagged)).toBe('Erika');
    expect(customerName({ customer_name: null, sender_id: 'wv_3f9a' }, tagged)).toBe('Besucher 3f9a');
    expect(senderLabel('+4930123456', t)).toBe('+4930123456');
    expect(senderLabel(null, t)).toBeNull();
    expect(customerLabel('widget', t)).toBe('people.visitor');
    expect(customerLabel('voice', t)).toBe('people.caller');
    expect(customerLabel('api', t)).toBe('people.customer');
    expect(channelLabel('pigeon', t)).toBe('channels.pigeon|channels.other');
  });
});
