/** What the widget keeps between page loads to resume a conversation. */
export interface Saved {
  token: string;
  expires_at: string;
  visitor_id: string;
  conversation_id?: string | null | undefined;
  /** Id of the last event seen on the events stream, to resume it. */
  last_event_id?: string | undefined;
}

export interface WidgetStore {
  /** Whether storage and requests are allowed (always, unless a consent gate is configured). */
  consented(): boolean;
  giveConsent(): void;
  load(): Saved | undefined;
  save(saved: Saved): void;
  /** Forgets the session and the consent. */
  clear(): void;
}

/** localStorage when the page lets the widget use it; undefined in private modes that refuse it. */
export function browserStorage(): Storage | undefined {
  try {
    const storage = window.localStorage;
    const probe = '__parley_probe__';
    storage.setItem(probe, '1');
    storage.removeItem(probe);
    return storage;
  } catch {
    return undefined;
  }
}

function isSaved(value: unknown): value is Saved {
  if (!value || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return typeof v.token === 'string' && typeof v.expires_at === 'string' && typeof v.visitor_id === 'string';
}

/**
 * The widget's storage for one publishable key. With a consent gate nothing is written (and the
 * widget sends no request) before the visitor agrees; until then, and without localStorage,
 * the session lives in memory only.
 */
export function createStore(
  storage: Storage | undefined,
  key: string,
  consentRequired: boolean,
): WidgetStore {
  const sessionKey = `parley.${key}.session`;
  const consentKey = `parley.${key}.consent`;
  let memory: Saved | undefined;
  let consentInMemory = false;

  const consented = () => {
    if (!consentRequired || consentInMemory) return true;
    try {
      return storage?.getItem(consentKey) === '1';
    } catch {
      return false;
    }
  };
  const write = (name: string, value: string | undefined) => {
    try {
      if (value === undefined) storage?.removeItem(name);
      else storage?.setItem(name, value);
    } catch {
      // storage full or refused: the session stays in memory
    }
  };

  return {
    consented,
    giveConsent() {
      consentInMemory = true;
      if (consentRequired) write(consentKey, '1');
    },
    load() {
      if (memory) return memory;
      if (!consented()) return undefined;
      try {
        const raw = storage?.getItem(sessionKey);
        const value: unknown = raw ? JSON.parse(raw) : undefined;
        memory = isSaved(value) ? value : undefined;
      } catch {
        memory = undefined;
      }
      return memory;
    },
    save(saved) {
      memory = saved;
      if (consented()) write(sessionKey, JSON.stringify(saved));
    },
    clear() {
      memory = undefined;
      consentInMemory = false;
      write(sessionKey, undefined);
      write(consentKey, undefined);
    },
  };
}

/** Whether a token expiring at `expiresAt` still has at least `marginMs` to live at `now`. */
export function tokenFresh(expiresAt: string, now: number, marginMs = 60_000): boolean {
  const at = Date.parse(expiresAt);
  return Number.isFinite(at) && at - marginMs > now;
}
