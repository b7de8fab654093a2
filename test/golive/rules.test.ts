import { describe, expect, it } from 'vitest';
import { goLiveChecklist, type GoLiveFacts } from '../../src/modules/golive/rules.js';

const READY: GoLiveFacts = {
  prompt: 'Du bist der Assistent des Salons.',
  knowledgeEntries: 3,
  preflightGreen: true,
  widgetLive: true,
  shareLink: false,
  mailboxes: 0,
  testExchange: true,
  isActive: false,
};

describe('go-live checklist (pure)', () => {
  it('is ready when every item is done, each item naming its tab', () => {
    const list = goLiveChecklist(READY);
    expect(list.ready).toBe(true);
    expect(list.missing).toEqual([]);
    expect(list.items.map((i) => [i.key, i.tab])).toEqual([
      ['prompt', 'prompt'],
      ['knowledge', 'knowledge'],
      ['preflight', 'flow'],
      ['channel', 'channels'],
      ['test_conversation', 'chat'],
    ]);
  });

  it.each<[string, Partial<GoLiveFacts>, string[]]>([
    ['empty prompt', { prompt: '' }, ['prompt']],
    ['blank prompt', { prompt: '  \n ' }, ['prompt']],
    ['no knowledge', { knowledgeEntries: 0 }, ['knowledge']],
    ['red pre-flight', { preflightGreen: false }, ['preflight']],
    ['no channel', { widgetLive: false }, ['channel']],
    ['no test exchange', { testExchange: false }, ['test_conversation']],
    [
      'a new bot',
      { prompt: '', knowledgeEntries: 0, widgetLive: false, testExchange: false },
      ['prompt', 'knowledge', 'channel', 'test_conversation'],
    ],
  ])('%s → missing %j', (_name, change, missing) => {
    const list = goLiveChecklist({ ...READY, ...change });
    expect(list.missing).toEqual(missing);
    expect(list.ready).toBe(false);
  });

  it.each<[Partial<GoLiveFacts>, string[]]>([
    [{ widgetLive: true }, ['widget']],
    [{ widgetLive: false, shareLink: true }, ['share_link']],
    [{ widgetLive: false, mailboxes: 2 }, ['email']],
    [{ widgetLive: true, shareLink: true, mailboxes: 1 }, ['widget', 'share_link', 'email']],
  ])('any channel counts: %j', (change, channels) => {
    const item = goLiveChecklist({ ...READY, ...change }).items.find((i) => i.key === 'channel')!;
    expect(item.done).toBe(true);
    expect(item.channels).toEqual(channels);
  });

  it('carries whether the bot is active', () => {
    expect(goLiveChecklist({ ...READY, isActive: true }).is_active).toBe(true);
  });
});
