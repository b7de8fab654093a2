/**
 * One conversation turn of a call, behind an interface: the relay and the Gather loop run a
 * turn for (tenant, bot, call, text), receive the reply's text as the model streams it, may
 * cancel it (an interrupt), and get back the final reply, whether it handed over, the block it
 * offers and the bookings it asks for. The implementation runs the conversation engine
 * (channel `voice`) with a streaming port like the chat's server-sent events.
 */
import type { AppContext } from '../../shared/context.js';
import { EngineRefusal } from '../../shared/refusal.js';
import { converse } from '../chat/pipeline/engine.js';
import type { ChatResponse, StreamSink } from '../chat/pipeline/types.js';
import type { ModelProvider, ModelReply, ModelRequest, ModelStreamEvent } from '../models/provider.js';
import { conversationStatus } from './repository.js';

export interface VoiceTurnInput {
  tenantId: string;
  botId: string;
  callSid: string;
  /** The call's conversation, once its first turn is stored. */
  conversationId: string | null;
  /** The caller's number (E.164): the conversation's sender and the contact. */
  caller: string;
  text: string;
  /** An item of the block offered last turn, chosen by key or by its title. */
  choice?: { blockId: string; itemId: string };
  /** A booking the caller confirmed: the turn books it (booking channel `voice`). */
  confirmBooking?: { eventId: string; kind: 'BOOK' | 'WAITLIST'; say: string };
}

export interface VoiceTurnOptions {
  /** Aborts the model's stream at once (the caller interrupted); the turn stores `spoken()`. */
  signal?: AbortSignal;
  /** Each piece of the reply as the model writes it. */
  onToken?: (text: string) => void;
  /** What the caller actually heard when the turn was interrupted. */
  spoken?: () => string | null;
}

export interface BookingRequest {
  kind: 'BOOK' | 'WAITLIST';
  eventId: string;
}

export type VoiceTurnResult =
  | {
      kind: 'answered';
      conversationId: string;
      /** The stored reply (after an interrupt: what was spoken up to it). */
      reply: string;
      interrupted: boolean;
      handover: boolean;
      blocks: ChatResponse['blocks'];
      /** Booking tags of the reply: read back before anything is booked. */
      bookingRequests: BookingRequest[];
      /** Bookings made this turn (after a confirmation). */
      actions: unknown[];
    }
  | { kind: 'refused'; reason: 'bot_off' | 'quota' | 'handed_over' | 'unavailable' };

export interface VoiceTurnRunner {
  run(input: VoiceTurnInput, options?: VoiceTurnOptions): Promise<VoiceTurnResult>;
}

const BOOKING_TAG = /\[\s*(BOOK|WAITLIST)\s*:\s*([^\]\s]*)\s*\]/gi;

/** The booking tags of a reply, and the reply without them (booking waits for the read-back). */
export function takeBookingTags(text: string): { text: string; requests: BookingRequest[] } {
  const requests: BookingRequest[] = [];
  for (const match of text.matchAll(BOOKING_TAG)) {
    const eventId = match[2]!.toLowerCase();
    if (!requests.some((r) => r.eventId === eventId)) {
      requests.push({ kind: match[1]!.toUpperCase() as 'BOOK' | 'WAITLIST', eventId });
    }
  }
  return {
    text: text
      .replace(BOOKING_TAG, '')
      .replace(/[ \t]{2,}/g, ' ')
      .trim(),
    requests,
  };
}

/**
 * The model of a voice turn: the deployment's model whose stream stops the moment the turn's
 * signal aborts (its request is aborted too) and then ends with what was spoken; booking tags
 * are taken out of the final reply, so the engine books only a confirmed booking.
 */
function voiceModel(
  model: ModelProvider,
  options: VoiceTurnOptions,
  taken: BookingRequest[],
  state: { interrupted: boolean },
): ModelProvider {
  const signal = options.signal;
  const strip = (reply: ModelReply): ModelReply => {
    const { text, requests } = takeBookingTags(reply.text);
    taken.push(...requests);
    return { ...reply, text };
  };
  return {
    name: model.name,
    describe: model.describe?.bind(model),
    async generate(request) {
      return strip(await model.generate(request));
    },
    async *stream(request: ModelRequest): AsyncGenerator<ModelStreamEvent> {
      const controller = new AbortController();
      const abort = () => controller.abort(signal?.reason);
      signal?.addEventListener('abort', abort, { once: true });
      const upstream = request.signal;
      upstream?.addEventListener('abort', () => controller.abort(upstream.reason), { once: true });
      const iterator = model.stream({ ...request, signal: controller.signal })[Symbol.asyncIterator]();
      const aborted = new Promise<'aborted'>((resolve) => {
        if (signal?.aborted) resolve('aborted');
        signal?.addEventListener('abort', () => resolve('aborted'), { once: true });
      });
      let written = '';
      try {
        for (;;) {
          const next = await Promise.race([iterator.next(), aborted]);
          if (next === 'aborted') {
            state.interrupted = true;
            void iterator.return?.(undefined)?.catch(() => undefined);
            const spoken = options.spoken?.() ?? written;
            yield {
              type: 'done',
              reply: strip({
                text: spoken.trim() === '' ? '…' : spoken,
                model: request.model || model.name,
                promptTokens: 0,
                completionTokens: 0,
              }),
            };
            return;
          }
          if (next.done) return;
          if (next.value.type === 'delta') written += next.value.text;
          yield next.value.type === 'done' ? { type: 'done', reply: strip(next.value.reply) } : next.value;
        }
      } finally {
        signal?.removeEventListener('abort', abort);
      }
    },
  };
}

/** A reply decided by the voice channel itself (a confirmed booking): its tag books it. */
function fixedModel(name: string, text: string): ModelProvider {
  const reply: ModelReply = { text, model: name, promptTokens: 0, completionTokens: 0 };
  return {
    name,
    generate: () => Promise.resolve(reply),
    async *stream() {
      yield { type: 'delta', text };
      yield { type: 'done', reply };
    },
  };
}

function refusalOf(error: unknown): VoiceTurnResult | null {
  if (!(error instanceof EngineRefusal)) return null;
  switch (error.reason) {
    case 'bot_disabled':
    case 'bot_not_found':
    case 'conversation_not_found':
      return { kind: 'refused', reason: 'bot_off' };
    case 'quota_exhausted':
    case 'budget_exhausted':
      return { kind: 'refused', reason: 'quota' };
    case 'handed_over':
    case 'idempotency_in_flight':
      return { kind: 'refused', reason: 'handed_over' };
    case 'model_unavailable':
      return { kind: 'refused', reason: 'unavailable' };
    // Voice names no channel guards (channels/registry.ts).
    case 'idempotency_mismatch':
    case 'loop_guarded':
    case 'opted_out':
      return null;
  }
}

/** The voice turn on the conversation engine. */
export function engineTurnRunner(ctx: AppContext): VoiceTurnRunner {
  return {
    async run(input, options = {}) {
      const bookingRequests: BookingRequest[] = [];
      const state = { interrupted: false };
      const model = input.confirmBooking
        ? fixedModel(
            'voice',
            `${input.confirmBooking.say} [${input.confirmBooking.kind}:${input.confirmBooking.eventId}]`,
          )
        : voiceModel(ctx.model, options, bookingRequests, state);
      let response: ChatResponse | undefined;
      let failed = false;
      const sink: StreamSink = {
        replay: (stored) => void (response = stored),
        open: () => undefined,
        delta: (text) => {
          if (!options.signal?.aborted && !input.confirmBooking) options.onToken?.(text);
        },
        done: (stored) => void (response = stored),
        fail: () => void (failed = true),
        close: () => undefined,
      };
      try {
        await converse(
          { ...ctx, model },
          {
            tenantId: input.tenantId,
            botId: input.botId,
            input: {
              message: input.text,
              senderId: input.caller,
              channel: 'voice',
              conversationId: input.conversationId,
              metadata: { call_sid: input.callSid },
              ...(input.choice ? { choice: input.choice } : {}),
            },
            idempotencyKey: null,
          },
          { stream: sink },
        );
      } catch (error) {
        const refusal = refusalOf(error);
        if (refusal) return refusal;
        throw error;
      }
      if (failed || !response) return { kind: 'refused', reason: 'unavailable' };
      const status = await conversationStatus(ctx.db, input.tenantId, response.conversation_id);
      return {
        kind: 'answered',
        conversationId: response.conversation_id,
        reply: response.reply,
        interrupted: state.interrupted,
        handover: status?.status === 'handed_over',
        blocks: response.blocks,
        bookingRequests,
        actions: response.actions,
      };
    },
  };
}
