/**
 * The visitor's session: the stored token, refreshed or replaced when it expired, and calls
 * made with a fresh token (after a 401 once more with a new session).
 */
import { ApiError, type WidgetApi } from './transport.js';
import { tokenFresh, type Saved, type createStore } from './storage.js';
import type { Session, TranscriptMessage, VisitorContext, WidgetConfig } from './types.js';

export type StoredSession = Saved & { bot?: Session['bot'] };

type Store = ReturnType<typeof createStore>;

/** What the widget tells of the visitor: the page they are on and their language. */
export function visitorContext(): VisitorContext | undefined {
  if (typeof location === 'undefined' || typeof document === 'undefined') return undefined;
  return {
    page_url: location.href.slice(0, 2000),
    ...(document.title ? { page_title: document.title.slice(0, 300) } : {}),
    ...(navigator.language ? { language: navigator.language.slice(0, 35) } : {}),
  };
}

export class VisitorSession {
  saved: StoredSession | undefined;
  private pending: Promise<StoredSession> | undefined;

  constructor(
    private readonly api: WidgetApi,
    private readonly store: Store,
    private readonly config: WidgetConfig,
    /** Told of the bot's settings whenever a session brings them. */
    private readonly onBot: (bot: Session['bot']) => void,
  ) {
    this.saved = store.load() as StoredSession | undefined;
  }

  persist(next: StoredSession): void {
    this.saved = next;
    this.store.save(next);
  }

  /** Forgets the session (the visitor deleted their conversation). */
  clear(): void {
    this.store.clear();
    this.saved = undefined;
    this.api.token = undefined;
  }

  private adopt(session: Session): StoredSession {
    const saved = this.saved;
    const next: StoredSession = {
      token: session.token,
      expires_at: session.expires_at,
      visitor_id: session.visitor_id,
      conversation_id: session.conversation_id ?? null,
      last_event_id: saved?.visitor_id === session.visitor_id ? saved?.last_event_id : undefined,
      bot: session.bot,
    };
    this.persist(next);
    this.onBot(session.bot);
    return next;
  }

  private async start(): Promise<StoredSession> {
    const session = await this.api.startSession(
      {
        publishable_key: this.config.publishableKey,
        visitor_id: this.saved?.visitor_id,
        identity_token: this.config.identityToken,
        context: visitorContext(),
      },
      this.saved?.token,
    );
    return this.adopt(session);
  }

  /** A session with a token that is still fresh: the stored one, refreshed, or a new one. */
  current(): Promise<StoredSession> {
    this.pending ??= (async () => {
      const saved = this.saved;
      if (saved && tokenFresh(saved.expires_at, Date.now())) {
        this.api.token = saved.token;
        return saved;
      }
      if (saved) {
        this.api.token = saved.token;
        try {
          return this.adopt(await this.api.refresh());
        } catch {
          // too old, or the key was rotated: a new session
        }
      }
      return this.start();
    })().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /** Runs a call with a fresh token; after a 401, once more with a new session. */
  async authed<T>(call: () => Promise<T>): Promise<T> {
    await this.current();
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401) throw error;
      if (this.saved) this.persist({ ...this.saved, expires_at: new Date(0).toISOString() });
      await this.start();
      return call();
    }
  }
}

/**
 * What the visitor has been shown of the conversation, so that a message arriving twice (the
 * reply of the message call and its echo on the events stream, a replayed event) is shown once.
 */
export class ShownMessages {
  private readonly seen = new Set<string>();
  /** Texts of bot replies just shown from the message call, not to be shown again from events. */
  private readonly recentReplies: string[] = [];
  /** Bot messages from the events stream while a reply streams, looked at when it is done. */
  readonly held: TranscriptMessage[] = [];

  /** Marks a message shown; false when it was already. */
  show(id: string | undefined): boolean {
    if (!id) return true;
    if (this.seen.has(id)) return false;
    this.seen.add(id);
    return true;
  }

  has(id: string | undefined): boolean {
    return id !== undefined && this.seen.has(id);
  }

  /** A bot reply shown from the message call (the last five are remembered). */
  replied(text: string): void {
    this.recentReplies.push(text);
    if (this.recentReplies.length > 5) this.recentReplies.shift();
  }

  /** Whether an event's message is the echo of a reply just shown (then it is marked shown). */
  isEcho(message: TranscriptMessage): boolean {
    const recent = message.from === 'bot' ? this.recentReplies.indexOf(message.text) : -1;
    if (recent === -1) return false;
    this.recentReplies.splice(recent, 1);
    if (message.id) this.seen.add(message.id);
    return true;
  }

  clear(): void {
    this.seen.clear();
  }
}
