/**
 * The transport: the widget's calls to the service, their errors and the reading of event
 * streams. Request and response types come from the OpenAPI document (api-schema.d.ts).
 */
import { SseParser, eventJson, type SseEvent } from './sse.js';
import type { BotResponse, RatingBody, Session, TranscriptMessage, VisitorContext } from './types.js';

export type { BotResponse } from './types.js';

/** A refusal of the service, with its status (and its German/English `message`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

/** A fresh random key for one message, kept across its retries (Idempotency-Key). */
export function newIdempotencyKey(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return 'wm_' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export interface SendHandlers {
  delta(text: string): void;
}

async function failure(response: Response): Promise<ApiError> {
  let message = response.statusText;
  try {
    const body = (await response.json()) as { message?: string; error?: string };
    message = body.message ?? body.error ?? message;
  } catch {
    // not JSON
  }
  const retry = Number(response.headers.get('retry-after'));
  return new ApiError(response.status, message, Number.isFinite(retry) && retry > 0 ? retry : undefined);
}

/** Reads a fetch body as server-sent events until it ends or the signal aborts. */
export async function readEvents(
  response: Response,
  onEvent: (event: SseEvent) => void,
  parser = new SseParser(),
  onActivity?: () => void,
): Promise<void> {
  if (!response.body) throw new Error('no body');
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    onActivity?.();
    for (const event of parser.feed(decoder.decode(value, { stream: true }))) onEvent(event);
  }
  for (const event of parser.feed(`${decoder.decode()}\n\n`)) onEvent(event);
}

/**
 * The widget's calls to the service. The visitor token travels only in the Authorization
 * header, never in a URL; credentials (cookies) are never sent.
 */
export class WidgetApi {
  token: string | undefined;

  constructor(private readonly origin: string) {}

  private async call(path: string, init: RequestInit & { auth?: boolean } = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (init.body !== undefined) headers.set('content-type', 'application/json');
    if (init.auth !== false && this.token) headers.set('authorization', `Bearer ${this.token}`);
    const response = await fetch(`${this.origin}${path}`, {
      ...init,
      headers,
      credentials: 'omit',
      mode: 'cors',
    });
    if (!response.ok) throw await failure(response);
    return response;
  }

  /**
   * A new session. The service keeps an earlier visitor id only for the holder of that visitor's
   * (refreshable) token, so the previous token goes along when there is one.
   */
  async startSession(
    body: {
      publishable_key: string;
      visitor_id?: string | undefined;
      identity_token?: string | undefined;
      context?: VisitorContext | undefined;
    },
    previousToken?: string,
  ): Promise<Session> {
    const response = await this.call('/v1/widget/sessions', {
      method: 'POST',
      body: JSON.stringify(body),
      auth: false,
      headers: previousToken ? { authorization: `Bearer ${previousToken}` } : {},
    });
    const session = (await response.json()) as Session;
    this.token = session.token;
    return session;
  }

  /** A new token for the same visitor; the service accepts a token shortly after it expired. */
  async refresh(): Promise<Session> {
    const response = await this.call('/v1/widget/sessions/refresh', { method: 'POST', body: '{}' });
    const fresh = (await response.json()) as Session;
    this.token = fresh.token;
    return fresh;
  }

  async transcript(): Promise<{ status?: string | null; messages: TranscriptMessage[] }> {
    const response = await this.call('/v1/widget/conversation');
    const body = (await response.json()) as { status?: string | null; messages?: TranscriptMessage[] };
    return { status: body.status, messages: body.messages ?? [] };
  }

  async deleteConversation(): Promise<void> {
    await this.call('/v1/widget/conversation', { method: 'DELETE' });
  }

  /**
   * Sends a message or a choice with its Idempotency-Key (the same key on every retry of the
   * message, so the service stores and answers it once); streams the reply (`delta` events) when
   * the service answers with an event stream, and takes a plain JSON answer as well.
   */
  async send(
    body: { text: string; choice?: { block_id: string; item_id: string }; context?: VisitorContext },
    handlers: SendHandlers,
    idempotencyKey: string,
  ): Promise<BotResponse> {
    const response = await this.call('/v1/widget/messages', {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { accept: 'text/event-stream, application/json;q=0.9', 'idempotency-key': idempotencyKey },
    });
    const type = response.headers.get('content-type') ?? '';
    if (!type.includes('text/event-stream')) return (await response.json()) as BotResponse;
    let result: BotResponse | undefined;
    let error: ApiError | undefined;
    await readEvents(response, (event) => {
      if (event.event === 'delta') {
        const data = eventJson<{ text?: string }>(event);
        if (data?.text) handlers.delta(data.text);
      } else if (event.event === 'done') {
        result = eventJson<BotResponse>(event);
      } else if (event.event === 'error') {
        const data = eventJson<{ message?: string; error?: string; status?: number }>(event);
        error = new ApiError(data?.status ?? 502, data?.message ?? data?.error ?? 'error');
      }
    });
    if (error) throw error;
    if (!result) throw new ApiError(0, 'stream ended without a reply');
    return result;
  }

  /** Tells the inbox that the visitor is typing. */
  async typing(): Promise<void> {
    await this.call('/v1/widget/typing', { method: 'POST', body: '{}' });
  }

  /** The visitor's address for a person's reply by e-mail. */
  async replyAddress(email: string): Promise<void> {
    await this.call('/v1/widget/reply-address', { method: 'POST', body: JSON.stringify({ email }) });
  }

  /** The visitor's satisfaction rating after a person closed the conversation. */
  async rate(body: RatingBody): Promise<void> {
    await this.call('/v1/widget/rating', { method: 'POST', body: JSON.stringify(body) });
  }

  /**
   * The conversation's events (`message`, `status`, `typing`), resumed after `lastEventId`. Resolves when
   * the stream ends; rejects on a refusal or a network error; aborts with the signal.
   */
  async events(
    lastEventId: string | undefined,
    signal: AbortSignal,
    onEvent: (event: SseEvent, lastEventId: string | undefined) => void,
    onActivity: () => void,
  ): Promise<void> {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (lastEventId) headers['last-event-id'] = lastEventId;
    const response = await this.call('/v1/widget/events', { headers, signal });
    const parser = new SseParser();
    parser.lastEventId = lastEventId;
    await readEvents(response, (event) => onEvent(event, parser.lastEventId), parser, onActivity);
  }
}

/** Without a byte (events or pings) for this long the events stream counts as dead and reopens. */
const HEARTBEAT_TIMEOUT_MS = 45_000;

/**
 * Follows the conversation's events stream: reopened with Last-Event-ID after an error (1 s,
 * doubling to 30 s) or a silence past the heartbeat timeout; ends on 403/404 (no open
 * conversation yet: started again after the next reply) or when `stop` is called.
 */
export class EventsFollower {
  private running = false;
  private abort: AbortController | undefined;
  /** Bumped by stop: a loop of an older generation ends. */
  private generation = 0;

  constructor(
    private readonly api: WidgetApi,
    private readonly authed: <T>(call: () => Promise<T>) => Promise<T>,
    private readonly lastEventId: () => string | undefined,
    private readonly onEvent: (event: SseEvent, lastEventId: string | undefined) => void,
    /** Whether the panel still wants events. */
    private readonly wanted: () => boolean,
  ) {}

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    const mine = this.generation;
    let delay = 1000;
    while (this.wanted() && mine === this.generation) {
      const controller = new AbortController();
      this.abort = controller;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const alive = () => {
        clearTimeout(timer);
        timer = setTimeout(() => controller.abort(), HEARTBEAT_TIMEOUT_MS);
      };
      try {
        alive();
        await this.authed(() =>
          this.api.events(this.lastEventId(), controller.signal, this.onEvent, () => {
            alive();
            delay = 1000;
          }),
        );
      } catch (error) {
        if (error instanceof ApiError && (error.status === 403 || error.status === 404)) break;
      } finally {
        clearTimeout(timer);
      }
      if (!this.wanted() || mine !== this.generation) break;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 30_000);
    }
    if (mine === this.generation) this.running = false;
  }

  stop(): void {
    this.generation += 1;
    this.running = false;
    this.abort?.abort();
  }
}

/**
 * Sends one message with a fresh Idempotency-Key; after a network failure (a phone changing
 * networks, not a refusal) once more with the same key, so the service stores and answers it once.
 */
export async function sendOnce(
  attempt: (key: string) => Promise<BotResponse>,
  beforeRetry: () => void,
): Promise<BotResponse> {
  const key = newIdempotencyKey();
  try {
    return await attempt(key);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    beforeRetry();
    return attempt(key);
  }
}
