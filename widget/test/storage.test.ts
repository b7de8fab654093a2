import { describe, expect, it } from 'vitest';
import { createStore, tokenFresh, type Saved } from '../src/storage.js';

class MemoryStorage implements Storage {
  private map = new Map<string, string>();
  get length() {
    return this.map.size;
  }
  clear() {
    this.map.clear();
  }
  getItem(key: string) {
    return this.map.get(key) ?? null;
  }
  key(index: number) {
    return [...this.map.keys()][index] ?? null;
  }
  removeItem(key: string) {
    this.map.delete(key);
  }
  setItem(key: string, value: string) {
    this.map.set(key, value);
  }
}

const session: Saved = { token: 'tok', expires_at: '2030-01-01T00:00:00Z', visitor_id: 'v_1' };

describe('widget storage', () => {
  it('without a consent gate keeps the session in localStorage for the next page load', () => {
    const storage = new MemoryStorage();
    createStore(storage, 'pk_a', false).save(session);
    expect(storage.length).toBe(1);
    expect(createStore(storage, 'pk_a', false).load()).toEqual(session);
    // another bot's key does not see it
    expect(createStore(storage, 'pk_b', false).load()).toBeUndefined();
  });

  it('with a consent gate writes nothing before consent and keeps the session in memory', () => {
    const storage = new MemoryStorage();
    const store = createStore(storage, 'pk_a', true);
    expect(store.consented()).toBe(false);
    store.save(session);
    expect(storage.length).toBe(0);
    expect(store.load()).toEqual(session);
    expect(createStore(storage, 'pk_a', true).load()).toBeUndefined();
  });

  it('after consent stores the consent and the session; a new page load resumes', () => {
    const storage = new MemoryStorage();
    const store = createStore(storage, 'pk_a', true);
    store.giveConsent();
    store.save(session);
    const next = createStore(storage, 'pk_a', true);
    expect(next.consented()).toBe(true);
    expect(next.load()).toEqual(session);
  });

  it('clear forgets the session and the consent', () => {
    const storage = new MemoryStorage();
    const store = createStore(storage, 'pk_a', true);
    store.giveConsent();
    store.save(session);
    store.clear();
    expect(storage.length).toBe(0);
    expect(store.load()).toBeUndefined();
    expect(store.consented()).toBe(false);
  });

  it('ignores stored values that are not a session, and works without localStorage', () => {
    const storage = new MemoryStorage();
    storage.setItem('parley.pk_a.session', '{"token":1}');
    expect(createStore(storage, 'pk_a', false).load()).toBeUndefined();
    storage.setItem('parley.pk_a.session', 'not json');
    expect(createStore(storage, 'pk_a', false).load()).toBeUndefined();
    const memoryOnly = createStore(undefined, 'pk_a', false);
    memoryOnly.save(session);
    expect(memoryOnly.load()).toEqual(session);
  });

  it('survives a storage that throws (full, or refused)', () => {
    const throwing = new MemoryStorage();
    throwing.setItem = () => {
      throw new Error('QuotaExceededError');
    };
    const store = createStore(throwing, 'pk_a', false);
    expect(() => store.save(session)).not.toThrow();
    expect(store.load()).toEqual(session);
  });

  it('tokenFresh: a token is used while it has more than the margin to live', () => {
    const now = Date.parse('2026-01-01T12:00:00Z');
    expect(tokenFresh('2026-01-01T12:05:00Z', now)).toBe(true);
    expect(tokenFresh('2026-01-01T12:00:30Z', now)).toBe(false);
    expect(tokenFresh('2026-01-01T12:00:30Z', now, 0)).toBe(true);
    expect(tokenFresh('garbage', now)).toBe(false);
  });
});
