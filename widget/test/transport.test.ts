import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, WidgetApi, newIdempotencyKey } from '../src/transport.js';
import { VisitorSession } from '../src/session.js';
import { createStore } from '../src/storage.js';
import { authorOf } from '../src/render.js';
import { TEXTS } from '../src/i18n.js';

interface Call {
  url: string;
  method: string;
  headers: Headers;
  body: unknown;
}

/** A fetch that records each call and answers from the list (a Response, or an error to throw). */
function fakeFetch(answers: (Response | Error)[]) {
  const calls: Call[] = [];
  vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
    calls.push({
      url,
      method: init.method ?? 'GET',
      headers: new Headers(init.headers),
      body: init.body ? JSON.parse(String(init.body)) : undefined,
    });
    const answer = answers.shift();
    if (!answer) throw new Error('no answer left');
    if (answer instanceof Error) throw answer;
    return answer;
  });
  return calls;
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const session = (token: string) => ({
  token,
  expires_at: new Date(Date.now() + 3600_000).toISOString(),
  visitor_id: 'wv_1',
  verified: false,
  conversation_id: null,
  bot: { name: 'Kursbot', language: 'de', theme: {}, greeting: null },
});

afterEach(() => vi.unstubAllGlobals());

describe('the widget transport', () => {
  it('sends each message with an Idempotency-Key, the same key on its retry after a new session', async () => {
    const calls = fakeFetch([
      json(201, session('t1')),
      json(401, { message: 'abgelaufen' }),
      json(201, session('t2')),
      json(200, { reply: 'Gern!', conversation_id: 'c1' }),
      json(200, { reply: 'Noch etwas?', conversation_id: 'c1' }),
    ]);
    const api = new WidgetApi('https://parley.example');
    const store = createStore(undefined, 'pk_test', false);
    const visitor = new VisitorSession(
      api,
      store,
      { origin: '', publishableKey: 'pk_test', consentRequired: false, fullscreen: false },
      () => undefined,
    );
    const first = newIdempotencyKey();
    const reply = await visitor.authed(() => api.send({ text: 'Hallo' }, { delta() {} }, first));
    expect(reply.reply).toBe('Gern!');
    const sends = calls.filter((c) => c.url.endsWith('/v1/widget/messages'));
    expect(sends).toHaveLength(2);
    expect(sends.map((c) => c.headers.get('idempotency-key'))).toEqual([first, first]);
    expect(sends[1]!.headers.get('authorization')).toBe('Bearer t2');
    // The next message has a fresh key.
    const second = newIdempotencyKey();
    await api.send({ text: 'Danke' }, { delta() {} }, second);
    expect(second).not.toBe(first);
    expect(calls.at(-1)!.headers.get('idempotency-key')).toBe(second);
    expect(first).toMatch(/^wm_[0-9a-f]{32}$/);
  });

  it('tells typing, leaves a reply address and rates, with the token; a refusal is an ApiError', async () => {
    const calls = fakeFetch([
      json(200, { ok: true }),
      json(200, { email: 'gast@example.test' }),
      json(200, { conversation_id: 'c1', rating: 5, comment: null }),
      json(409, { message: 'Bewerten lässt sich ein Gespräch, nachdem ein Mensch es beendet hat.' }),
    ]);
    const api = new WidgetApi('https://parley.example');
    api.token = 'tok';
    await api.typing();
    await api.replyAddress('gast@example.test');
    await api.rate({ rating: 5 });
    await expect(api.rate({ rating: 4, comment: 'gut' })).rejects.toBeInstanceOf(ApiError);
    expect(calls.map((c) => [c.method, new URL(c.url).pathname, c.body])).toEqual([
      ['POST', '/v1/widget/typing', {}],
      ['POST', '/v1/widget/reply-address', { email: 'gast@example.test' }],
      ['POST', '/v1/widget/rating', { rating: 5 }],
      ['POST', '/v1/widget/rating', { rating: 4, comment: 'gut' }],
    ]);
    expect(calls.every((c) => c.headers.get('authorization') === 'Bearer tok')).toBe(true);
  });
});

describe('authorOf', () => {
  it.each([
    [{ from: 'person' as const, author: { name: 'Anna' } }, 'Anna'],
    [{ from: 'person' as const }, TEXTS.de.person],
    [{ from: 'bot' as const }, 'Kursbot'],
    [{ from: 'visitor' as const }, TEXTS.de.you],
  ])('%j → %s', (message, expected) => {
    expect(authorOf(message, TEXTS.de, 'Kursbot')).toBe(expected);
  });
});
