/**
 * The call, shared by both modes: admitting a call (bot on, quota left, calls per caller),
 * one utterance of the caller turned into what the voice says (a reply made for speech, the
 * choices of a block, the read-back and confirmation of a booking, silence, the call's length),
 * the hand-over with its context, and the call's end.
 */
import type { AppContext } from '../../shared/context.js';
import { quotaPeriod } from '../chat/index.js';
import { findOrCreateContactBySender } from '../contacts/index.js';
import { endConversation, escalateConversation } from '../conversations/index.js';
import { findEvent } from '../events/index.js';
import type { VoiceConnection } from './connection.js';
import { isOpen } from './hours.js';
import * as repo from './repository.js';
import type { VoiceTurnOptions, VoiceTurnRunner } from './runner.js';
import { chosenItem, spokenChoices, type SpokenBlock } from './speech/choices.js';
import { speakable, spokenDate, spokenTime } from './speech/normalise.js';
import { voiceLanguageOf, type VoiceLanguage } from './speech/numbers.js';
import { confirmation, PHRASES } from './speech/phrases.js';
import { SpokenStream } from './speech/stream.js';

export type VoiceCall = repo.VoiceCallRow;

/** What the call waits for from the caller. */
type Pending =
  | { kind: 'choice'; block: SpokenBlock }
  | { kind: 'booking'; eventId: string; tag: 'BOOK' | 'WAITLIST'; title: string }
  | null;

/** Why a relay ends, with what the hand-over action says or does then (`handoffData`). */
export interface HandoffData {
  reason: 'handover' | 'goodbye' | 'max_length' | 'unavailable';
  conversationId: string | null;
  summary: string | null;
  /** The sentence said before hanging up (goodbye, refusals). */
  message: string | null;
  language: VoiceLanguage;
}

export type Admission = { kind: 'accepted'; call: VoiceCall } | { kind: 'refused'; say: string };

/**
 * Admits a call: answered with a short message (never silence) when the bot is off, the
 * month's quota is used up, or the caller called too often in the last hour. The caller's
 * contact is found or created by their number.
 */
export async function startCall(
  ctx: AppContext,
  connection: VoiceConnection,
  call: { callSid: string; from: string },
): Promise<Admission> {
  const lang = connection.language;
  const record = (status: 'in-progress' | 'refused') =>
    repo.insertCall(ctx.db, {
      callSid: call.callSid,
      tenantId: connection.tenantId,
      botId: connection.botId,
      connectionId: connection.id,
      caller: call.from,
      language: lang,
      status,
    });
  const bot = await repo.botAvailability(ctx.db, connection.tenantId, connection.botId, quotaPeriod());
  if (!bot || !bot.active || (bot.quota !== null && bot.used >= bot.quota)) {
    await record('refused');
    return { kind: 'refused', say: PHRASES[lang].unavailable };
  }
  const existing = await repo.findCall(ctx.db, connection.id, call.callSid);
  if (existing) return { kind: 'accepted', call: existing };
  if ((await repo.countRecentCalls(ctx.db, connection.id, call.from)) >= connection.callsPerCallerPerHour) {
    await record('refused');
    return { kind: 'refused', say: PHRASES[lang].tooManyCalls };
  }
  await findOrCreateContactBySender(ctx.db, connection.tenantId, { senderId: call.from, channel: 'voice' });
  return { kind: 'accepted', call: (await record('in-progress')).row };
}

/** The greeting the call is answered with. */
export function greetingOf(connection: VoiceConnection, botName: string | null): string {
  if (connection.greeting) return connection.greeting;
  const lang = connection.language;
  const name = botName ? ` ${botName}` : '';
  return {
    de: `Guten Tag, hier ist${name}. Wie kann ich Ihnen helfen?`,
    en: `Hello, this is${name}. How can I help you?`,
    fr: `Bonjour, ici${name}. Comment puis-je vous aider ?`,
    it: `Buongiorno, sono${name}. Come posso aiutarla?`,
  }[lang];
}

export async function botName(ctx: AppContext, connection: VoiceConnection): Promise<string | null> {
  const bot = await repo.botAvailability(ctx.db, connection.tenantId, connection.botId, quotaPeriod());
  return bot?.name ?? null;
}

export interface Utterance {
  speech?: string | null;
  digits?: string | null;
  /** The caller's language as recognised (relay), when known. */
  lang?: string | null;
}

export interface SpokenTurn {
  /** Everything said this turn (the Gather loop says it at once). */
  say: string;
  /** What comes after the streamed part (the relay sends it with `last: true`). */
  tail: string;
  interrupted: boolean;
  /** The call ends after this turn (hand-over, goodbye, refusal). */
  end: HandoffData | null;
}

function ended(call: VoiceCall, reason: HandoffData['reason'], message: string | null): HandoffData {
  return {
    reason,
    conversationId: call.conversation_id,
    summary: null,
    message,
    language: voiceLanguageOf(call.language),
  };
}

/** The hand-over's summary: what the caller said last. */
async function summaryOf(ctx: AppContext, call: VoiceCall, conversationId: string): Promise<string> {
  const said = await repo.lastCallerMessages(ctx.db, call.tenant_id, conversationId, 3);
  return said.map((s) => `„${s.slice(0, 200)}“`).join(' – ');
}

/** A booking read back in words before it is made: event, date, time and name. */
async function readBack(
  ctx: AppContext,
  call: VoiceCall,
  lang: VoiceLanguage,
  request: { eventId: string },
): Promise<{ say: string; title: string } | null> {
  const event = await findEvent(ctx.db, call.tenant_id, request.eventId);
  if (!event) return null;
  const contact = await findOrCreateContactBySender(ctx.db, call.tenant_id, {
    senderId: call.caller,
    channel: 'voice',
  });
  const [y, m, d] = String(event.event_date).slice(0, 10).split('-').map(Number);
  const date = spokenDate(lang, d!, m!, y!, 'n');
  const [h, min] = (event.event_time_start ?? '').split(':').map(Number);
  const time = event.event_time_start ? spokenTime(lang, h!, min!) : null;
  const say = PHRASES[lang].readBack({ event: event.title, date, time, name: contact.name });
  return { say, title: event.title };
}

/** The outcome of a confirmed booking in words. */
function bookingOutcome(lang: VoiceLanguage, title: string, actions: unknown[]): string {
  const action = actions.find((a): a is { type: string; status: string } => {
    return typeof a === 'object' && a !== null && (a as { type?: unknown }).type === 'booking';
  });
  if (action?.status === 'confirmed') return PHRASES[lang].booked(title);
  if (action?.status === 'waitlist') return PHRASES[lang].waitlisted(title);
  return PHRASES[lang].bookingRefused(title);
}

/**
 * One utterance of the caller (or the silence after a prompt) → what the voice says. With
 * `onSpeech` the reply's text is handed over in pieces as the model writes it (made for
 * speech); the rest of the turn's text is in `tail`.
 */
export async function respond(
  ctx: AppContext,
  runner: VoiceTurnRunner,
  connection: VoiceConnection,
  call: VoiceCall,
  utterance: Utterance,
  options: Omit<VoiceTurnOptions, 'onToken'> & { onSpeech?: (text: string) => void; now?: Date } = {},
): Promise<SpokenTurn> {
  const lang = utterance.lang ? voiceLanguageOf(utterance.lang) : voiceLanguageOf(call.language);
  const phrases = PHRASES[lang];
  const speak = (say: string, end: HandoffData | null = null): SpokenTurn => ({
    say,
    tail: say,
    interrupted: false,
    end,
  });
  const now = options.now ?? new Date();
  if (now.getTime() - new Date(call.started_at).getTime() > connection.maxCallSeconds * 1000) {
    return speak(phrases.callTooLong, ended(call, 'max_length', phrases.callTooLong));
  }
  const speech = utterance.speech?.trim() ?? '';
  const digits = utterance.digits?.trim() ?? '';
  if (speech === '' && digits === '') {
    const silent = call.silent_prompts + 1;
    await repo.updateCall(ctx.db, call.call_sid, { silentPrompts: silent });
    if (silent >= 2) return speak(phrases.goodbye, ended(call, 'goodbye', phrases.goodbye));
    return speak(phrases.stillThere);
  }
  const pending = (call.pending ?? null) as Pending;
  const base = { tenantId: call.tenant_id, botId: call.bot_id, callSid: call.call_sid, caller: call.caller };
  let text = speech !== '' ? speech : digits;
  let choice: { blockId: string; itemId: string } | undefined;
  let confirmBooking: { eventId: string; kind: 'BOOK' | 'WAITLIST'; say: string } | undefined;
  if (pending?.kind === 'booking') {
    const answer = confirmation(lang, { speech, digits });
    if (answer === 'no') {
      await repo.updateCall(ctx.db, call.call_sid, { pending: null, silentPrompts: 0 });
      return speak(phrases.bookingDropped);
    }
    if (answer === 'yes') {
      confirmBooking = {
        eventId: pending.eventId,
        kind: pending.tag,
        say: speakable(phrases.booked(pending.title), lang),
      };
    }
  } else if (pending?.kind === 'choice') {
    choice = chosenItem(pending.block, { speech, digits }) ?? undefined;
    const item = choice && pending.block.items.find((i) => i.id === choice!.itemId);
    if (item) text = item.title;
  }
  const stream = new SpokenStream(lang);
  const result = await runner.run(
    { ...base, conversationId: call.conversation_id, text, choice, confirmBooking },
    {
      signal: options.signal,
      spoken: options.spoken,
      onToken: (token) => {
        const piece = stream.push(token);
        if (piece !== '') options.onSpeech?.(piece);
      },
    },
  );
  if (result.kind === 'refused') {
    if (result.reason === 'handed_over') {
      return speak(phrases.connecting, { ...ended(call, 'handover', null), summary: null });
    }
    return speak(phrases.unavailable, ended(call, 'unavailable', phrases.unavailable));
  }
  const conversationId = result.conversationId;
  call.conversation_id = conversationId;
  const rest = result.interrupted ? '' : stream.end();
  let extra = '';
  let next: Pending = null;
  if (confirmBooking && pending?.kind === 'booking') {
    extra = bookingOutcome(lang, pending.title, result.actions);
  } else if (!result.interrupted && result.bookingRequests[0]) {
    const request = result.bookingRequests[0];
    const back = await readBack(ctx, call, lang, request);
    if (back) {
      extra = speakable(back.say, lang);
      next = { kind: 'booking', eventId: request.eventId, tag: request.kind, title: back.title };
    }
  } else if (!result.interrupted && result.blocks[0] && result.blocks[0].items.length > 0) {
    const block = { id: result.blocks[0].id, items: result.blocks[0].items.slice(0, 3) };
    extra = spokenChoices(block, lang);
    next = { kind: 'choice', block };
  }
  await repo.updateCall(ctx.db, call.call_sid, {
    conversationId,
    language: lang,
    pending: next,
    silentPrompts: 0,
    countTurn: true,
  });
  call.pending = next;
  call.silent_prompts = 0;
  // A confirmed booking says its outcome (the stored reply only names the event).
  const tail = confirmBooking ? extra : `${rest} ${extra}`.trim();
  const say = confirmBooking ? extra : `${speakable(result.reply, lang)} ${extra}`.trim();
  if (result.handover) {
    return {
      say,
      tail,
      interrupted: result.interrupted,
      end: { ...ended(call, 'handover', null), summary: await summaryOf(ctx, call, conversationId) },
    };
  }
  return { say, tail, interrupted: result.interrupted, end: null };
}

/**
 * The `<Connect action>` after the relay ended: a hand-over dials the connection's number
 * within its opening hours, otherwise the caller hears that someone will call back and the
 * conversation waits in the inbox; goodbye and refusals say their sentence and hang up.
 */
export async function afterRelay(
  ctx: AppContext,
  connection: VoiceConnection,
  call: VoiceCall | undefined,
  data: HandoffData | null,
  now: Date = new Date(),
): Promise<
  | { kind: 'dial'; say: string; number: string; lang: VoiceLanguage }
  | { kind: 'say'; say: string; lang: VoiceLanguage }
  | { kind: 'hangup' }
> {
  if (!data || !call) return { kind: 'hangup' };
  const lang = voiceLanguageOf(data.language);
  if (data.reason !== 'handover')
    return data.message ? { kind: 'say', say: data.message, lang } : { kind: 'hangup' };
  const conversationId = call.conversation_id;
  if (conversationId) {
    const status = await repo.conversationStatus(ctx.db, call.tenant_id, conversationId);
    // The inbox entry: a hand-over the engine did not store already is stored now.
    if (status?.status === 'active') {
      await escalateConversation(ctx.db, call.tenant_id, conversationId, {
        reason: 'Anruf: Übergabe an eine Person',
        handover: { reason: 'customer_request', question: data.summary },
      });
    }
  }
  await repo.updateCall(ctx.db, call.call_sid, { handoffReason: 'handover' });
  if (connection.handoffNumber && isOpen(connection.openingHours, now)) {
    return { kind: 'dial', say: PHRASES[lang].connecting, number: connection.handoffNumber, lang };
  }
  return { kind: 'say', say: PHRASES[lang].closed, lang };
}

/** Twilio's final call statuses. */
export const FINAL_STATUSES = new Set(['completed', 'busy', 'failed', 'no-answer', 'canceled']);

/** A status callback: the final status and duration are stored; the conversation closes with the call. */
export async function callStatus(
  ctx: AppContext,
  connection: VoiceConnection,
  input: { callSid: string; status: string; durationSeconds: number | null },
): Promise<void> {
  if (!FINAL_STATUSES.has(input.status)) return;
  const call = await repo.finishCall(
    ctx.db,
    connection.id,
    input.callSid,
    input.status,
    input.durationSeconds,
  );
  if (!call?.conversation_id) return;
  const status = await repo.conversationStatus(ctx.db, call.tenant_id, call.conversation_id);
  // A conversation handed over stays open for the person who calls back.
  if (status?.status === 'active') {
    await endConversation(ctx.db, call.tenant_id, call.conversation_id, { reason: `call_${input.status}` });
  }
}
