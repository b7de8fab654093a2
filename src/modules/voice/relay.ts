/**
 * One ConversationRelay session: Twilio's side of the WebSocket speaks `setup`, `prompt`,
 * `interrupt`, `dtmf` and `error`; this side answers with `text` tokens as the model writes
 * them (`last: true` on the final one), `language` when the caller switches, and `end` with
 * `handoffData` when the call leaves the bot (hand-over, goodbye, refusal). An `interrupt`
 * aborts the running turn at once; the turn stores what the caller heard up to it.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../../shared/context.js';
import type { VoiceConnection } from './connection.js';
import type { VoiceTurnRunner } from './runner.js';
import { respond, startCall, type HandoffData, type Utterance, type VoiceCall } from './service.js';
import { findCall } from './repository.js';
import { voiceLanguageOf } from './speech/numbers.js';
import { TWILIO_LANGUAGE } from './twiml.js';

/** Messages this side sends (Twilio's ConversationRelay protocol). */
export type RelayOutbound =
  | { type: 'text'; token: string; last: boolean; lang?: string; interruptible?: boolean }
  | { type: 'play'; source: string; loop?: number; preemptible?: boolean; interruptible?: boolean }
  | { type: 'sendDigits'; digits: string }
  | { type: 'language'; ttsLanguage: string; transcriptionLanguage: string }
  | { type: 'end'; handoffData: string };

export interface RelayOptions {
  /** Silence after the bot spoke before the caller is asked again (ms). */
  silenceMs: number;
  log?: Pick<FastifyBaseLogger, 'warn' | 'error'>;
}

export class RelaySession {
  private call: VoiceCall | undefined;
  private current: { controller: AbortController; spoken: string | null } | null = null;
  private queue: Promise<void> = Promise.resolve();
  private silenceTimer: NodeJS.Timeout | null = null;
  private lengthTimer: NodeJS.Timeout | null = null;
  private language: string | null = null;
  private closed = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly runner: VoiceTurnRunner,
    private readonly connection: VoiceConnection,
    private readonly send: (message: RelayOutbound) => void,
    private readonly options: RelayOptions,
  ) {}

  /** One message from Twilio. */
  handle(raw: string): void {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return;
    }
    switch (message.type) {
      case 'setup':
        this.enqueue(() => this.setup(message));
        break;
      case 'prompt':
        // Partial prompts (last: false) come while the caller still speaks: only the final counts.
        if (message.last === false) return;
        this.interruptTurn(null);
        this.enqueue(() =>
          this.turn({ speech: String(message.voicePrompt ?? ''), lang: stringOr(message.lang) }),
        );
        break;
      case 'dtmf':
        this.interruptTurn(null);
        this.enqueue(() => this.turn({ digits: String(message.digit ?? '') }));
        break;
      case 'interrupt':
        this.interruptTurn(stringOr(message.utteranceUntilInterrupt) ?? '');
        break;
      case 'error':
        this.options.log?.warn({ description: message.description }, 'conversation relay error');
        break;
    }
  }

  /** The socket closed: the running turn stops, timers end. */
  close(): void {
    this.closed = true;
    this.interruptTurn(null);
    this.clearTimers();
  }

  /** Resolves when every queued message has been handled (tests, shutdown). */
  idle(): Promise<void> {
    return this.queue;
  }

  private enqueue(work: () => Promise<void>): void {
    this.queue = this.queue.then(work).catch((error: unknown) => {
      this.options.log?.error({ err: error }, 'voice relay turn failed');
      this.finish({
        reason: 'unavailable',
        conversationId: this.call?.conversation_id ?? null,
        summary: null,
        message: null,
        language: voiceLanguageOf(this.call?.language),
      });
    });
  }

  private interruptTurn(spoken: string | null): void {
    if (!this.current) return;
    if (spoken !== null) this.current.spoken = spoken;
    this.current.controller.abort();
  }

  private async setup(message: Record<string, unknown>): Promise<void> {
    const callSid = String(message.callSid ?? '');
    this.call = await findCall(this.ctx.db, this.connection.id, callSid);
    if (!this.call) {
      const admitted = await startCall(this.ctx, this.connection, {
        callSid,
        from: String(message.from ?? ''),
      });
      if (admitted.kind === 'refused') {
        this.finish({
          reason: 'unavailable',
          conversationId: null,
          summary: null,
          message: admitted.say,
          language: this.connection.language,
        });
        return;
      }
      this.call = admitted.call;
    }
    this.language = this.call.language;
    const left =
      this.connection.maxCallSeconds * 1000 - (Date.now() - new Date(this.call.started_at).getTime());
    this.lengthTimer = setTimeout(
      () => this.enqueue(() => this.turn({ speech: '' }, { timeUp: true })),
      Math.max(left, 0),
    );
    this.lengthTimer.unref();
    this.armSilence();
  }

  private armSilence(): void {
    if (this.silenceTimer) clearTimeout(this.silenceTimer);
    if (this.closed) return;
    this.silenceTimer = setTimeout(
      () => this.enqueue(() => this.turn({ speech: '' })),
      this.options.silenceMs,
    );
    this.silenceTimer.unref();
  }

  private clearTimers(): void {
    if (this.silenceTimer) clearTimeout(this.silenceTimer);
    if (this.lengthTimer) clearTimeout(this.lengthTimer);
  }

  private async turn(utterance: Utterance, flags: { timeUp?: boolean } = {}): Promise<void> {
    const call = this.call;
    if (!call || this.closed) return;
    if (this.silenceTimer) clearTimeout(this.silenceTimer);
    if (utterance.lang) {
      const lang = voiceLanguageOf(utterance.lang);
      if (lang !== this.language) {
        this.language = lang;
        const code = TWILIO_LANGUAGE[lang];
        this.send({ type: 'language', ttsLanguage: code, transcriptionLanguage: code });
      }
    }
    const current = { controller: new AbortController(), spoken: null as string | null };
    this.current = current;
    try {
      const spoken = await respond(this.ctx, this.runner, this.connection, call, utterance, {
        signal: current.controller.signal,
        spoken: () => current.spoken,
        now: flags.timeUp ? new Date(Date.now() + this.connection.maxCallSeconds * 1000 + 1000) : undefined,
        onSpeech: (text) => {
          if (!current.controller.signal.aborted) this.send({ type: 'text', token: text, last: false });
        },
      });
      if (spoken.end) {
        // Goodbye, refusal and hand-over are said by the `<Connect action>` after the session.
        this.finish(spoken.end);
        return;
      }
      if (!spoken.interrupted) this.send({ type: 'text', token: spoken.tail, last: true });
    } finally {
      if (this.current === current) this.current = null;
    }
    this.armSilence();
  }

  private finish(data: HandoffData): void {
    if (this.closed) return;
    this.closed = true;
    this.clearTimers();
    this.send({ type: 'end', handoffData: JSON.stringify(data) });
  }
}

function stringOr(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
