import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import twilio from 'twilio';
import WebSocket from 'ws';
import type { AppContext } from '../../src/shared/context.js';
import {
  registerVoiceConnections,
  VOICE_DEFAULTS,
  type VoiceConnection,
} from '../../src/modules/voice/connection.js';
import type { ModelProvider, ModelReply, ModelStreamEvent } from '../../src/modules/models/provider.js';

export const PUBLIC_BASE = 'https://voice.example.test';

/** A table of connections standing in for the channel connections of a test's context. */
export function connectionTable(ctx: AppContext): Map<string, VoiceConnection> {
  const table = new Map<string, VoiceConnection>();
  registerVoiceConnections(ctx, async (id) => table.get(id) ?? null);
  return table;
}

export function voiceConnection(
  tenantId: string,
  botId: string,
  fields: Partial<VoiceConnection> = {},
): VoiceConnection {
  return {
    id: randomUUID(),
    tenantId,
    botId,
    accountSid: `AC${randomUUID().replace(/-/g, '')}`,
    authToken: randomUUID().replace(/-/g, ''),
    phoneNumber: '+493011112222',
    handoffNumber: '+493099998888',
    mode: 'relay',
    publicBaseUrl: PUBLIC_BASE,
    language: 'de',
    greeting: null,
    openingHours: null,
    maxCallSeconds: VOICE_DEFAULTS.maxCallSeconds,
    callsPerCallerPerHour: VOICE_DEFAULTS.callsPerCallerPerHour,
    ...fields,
  };
}

/** Posts a form to a voice webhook, signed as Twilio signs it (or as told). */
export function postSigned(
  app: FastifyInstance,
  connection: VoiceConnection,
  path: string,
  form: Record<string, string>,
  options: { signedUrl?: string; signedForm?: Record<string, string>; token?: string } = {},
) {
  const url = `/v1/channels/${connection.id}/voice/${path}`;
  const signature = twilio.getExpectedTwilioSignature(
    options.token ?? connection.authToken,
    options.signedUrl ?? `${PUBLIC_BASE}${url}`,
    options.signedForm ?? form,
  );
  return app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
    payload: new URLSearchParams(form).toString(),
  });
}

/** Twilio's side of ConversationRelay over a real WebSocket. */
export class RelaySimulator {
  readonly received: Record<string, unknown>[] = [];
  private waiters: (() => void)[] = [];

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data: Buffer) => {
      this.received.push(JSON.parse(data.toString('utf8')) as Record<string, unknown>);
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  static async connect(
    port: number,
    connection: VoiceConnection,
    signWith: { url?: string; token?: string } = {},
  ): Promise<RelaySimulator | { rejected: number }> {
    const path = `/v1/channels/${connection.id}/voice/relay`;
    const signature = twilio.getExpectedTwilioSignature(
      signWith.token ?? connection.authToken,
      signWith.url ?? `${PUBLIC_BASE.replace(/^http/, 'ws')}${path}`,
      {},
    );
    const socket = new WebSocket(`ws://127.0.0.1:${port}${path}`, {
      headers: { 'x-twilio-signature': signature },
    });
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new RelaySimulator(socket)));
      socket.once('unexpected-response', (_req, res) => resolve({ rejected: res.statusCode ?? 0 }));
      socket.once('error', reject);
    });
  }

  send(message: Record<string, unknown>): void {
    this.socket.send(JSON.stringify(message));
  }

  setup(callSid: string, from: string): void {
    this.send({
      type: 'setup',
      sessionId: `VX${callSid}`,
      callSid,
      from,
      to: '+493011112222',
      direction: 'inbound',
    });
  }

  prompt(voicePrompt: string, lang = 'de-DE'): void {
    this.send({ type: 'prompt', voicePrompt: voicePrompt.slice(0, 5), lang, last: false });
    this.send({ type: 'prompt', voicePrompt, lang, last: true });
  }

  /** Waits until a message matches; returns it. */
  async waitFor(
    match: (message: Record<string, unknown>) => boolean,
    timeoutMs = 10_000,
  ): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find(match);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(`no matching relay message in ${JSON.stringify(this.received)}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  /** The text of the turn that ended with the n-th `last: true` (1-based), and clears nothing. */
  async turnText(n: number): Promise<string> {
    await this.waitFor(() => this.received.filter((m) => m.type === 'text' && m.last === true).length >= n);
    const texts: string[] = [];
    let ends = 0;
    for (const m of this.received) {
      if (m.type !== 'text') continue;
      if (ends === n - 1) texts.push(String(m.token));
      if (m.last === true) ends++;
    }
    return texts.join('');
  }

  close(): void {
    this.socket.close();
  }
}

/** A model that streams its reply word by word, `delayMs` apart, and counts its calls. */
export class WordModel implements ModelProvider {
  readonly name = 'words';
  calls = 0;
  firstTokenAt: number[] = [];
  constructor(
    public reply: string,
    public delayMs = 0,
    public startDelayMs = 0,
  ) {}

  async generate(): Promise<ModelReply> {
    this.calls++;
    await new Promise((r) => setTimeout(r, this.startDelayMs));
    return { text: this.reply, model: 'words', promptTokens: 10, completionTokens: 5 };
  }

  async *stream(request: { signal?: AbortSignal }): AsyncGenerator<ModelStreamEvent> {
    this.calls++;
    if (this.startDelayMs) await new Promise((r) => setTimeout(r, this.startDelayMs));
    const words = this.reply.split(/(?<= )/);
    for (const [i, word] of words.entries()) {
      if (request.signal?.aborted) return;
      if (i === 0) this.firstTokenAt.push(performance.now());
      yield { type: 'delta', text: word };
      if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
    }
    yield {
      type: 'done',
      reply: { text: this.reply, model: 'words', promptTokens: 10, completionTokens: 5 },
    };
  }
}
