import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Me } from '../api/types';
import { NAV } from './nav';
import { startPath } from './router';
import { isSignedOut, markSignedIn, markSignedOut, sessionGeneration } from './session-state';

const me = (permissions: string[]) =>
  ({
    user: { id: 'u1', email: 'a@b.test' },
    permissions,
    tenant: { id: 't1', name: 'T', plan_id: 'free' },
  }) as unknown as Me;

describe('the session as the app knows it', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('asks GET /api/me once however many pages ask at the same time', async () => {
    vi.resetModules();
    const fresh = await import('./session-state');
    const fetch = vi.fn(async () => new Response('{}', { status: 401 }));
    vi.stubGlobal('fetch', fetch);
    const answers = await Promise.all([
      fresh.currentSession(),
      fresh.currentSession(),
      fresh.currentSession(),
    ]);
    expect(answers).toEqual([null, null, null]);
    expect(await fresh.currentSession()).toBeNull();
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(fresh.isSignedOut()).toBe(true);
  });

  it("answers the sign-in's own user when a 401 of an older check arrives after it", async () => {
    let answer401: (response: Response) => void = () => undefined;
    vi.stubGlobal(
      'fetch',
      vi.fn(() => new Promise<Response>((resolve) => (answer401 = resolve))),
    );
    vi.resetModules();
    const fresh = await import('./session-state');
    const pending = fresh.currentSession();
    const pendingTwice = fresh.currentSession();
    const signedIn = me(['bot:view']);
    fresh.markSignedIn(signedIn);
    answer401(new Response('{}', { status: 401 }));
    expect(await pending).toBe(signedIn);
    expect(await pendingTwice).toBe(signedIn);
    expect(fresh.isSignedOut()).toBe(false);
  });

  it('counts generations: every sign-in and sign-out is a new one', () => {
    const before = sessionGeneration();
    markSignedIn(me([]));
    markSignedIn(me([]), { sameGeneration: true });
    expect(sessionGeneration()).toBe(before + 1);
    markSignedOut();
    expect(sessionGeneration()).toBe(before + 2);
    expect(isSignedOut()).toBe(true);
  });
});

describe('the start page after sign-in', () => {
  it.each([
    [['usage:view', 'bot:view', 'conversation:view'], '/'],
    [['conversation:view', 'conversation:review', 'contact:view', 'inbox:work'], '/inbox'],
    [['bot:view'], '/bots'],
    [[], '/settings'],
  ])('%j → %s', (permissions, path) => {
    expect(startPath(permissions)).toBe(path);
    expect(NAV.some((item) => item.to === path)).toBe(true);
  });
});
