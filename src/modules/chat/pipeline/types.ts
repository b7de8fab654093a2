/**
 * The shapes the conversation engine speaks: the inbound message an adapter hands it, the
 * response it produces, the output ports the reply leaves through, and the observer that times
 * its stages from outside.
 */
import type { Static } from '@sinclair/typebox';
import type { FastifyBaseLogger } from 'fastify';
import type { Queryable } from '../../../db/database.js';
import type { AdmissionStep, ChatStage, ModelChoiceRecord } from '../../../observability/trace-records.js';
import type { ChannelKind } from '../../channels/registry.js';
import type { ChatBlock } from '../../flow/stage.js';
import type { KnowledgeHit } from '../../knowledge/search.js';
import type { ChatInput } from '../request.js';
import type { ChatErrorSchema, ChatResponseSchema, ChatSourceSchema } from '../schema.js';

/**
 * One message for a bot, as an inbound adapter (the chat API, the dashboard's test chat, a
 * future channel) hands it to the engine after verifying the sender: who (tenant), to which
 * bot, what (`input`: text, sender, channel, conversation, metadata), and the caller's key for
 * a safe retry.
 */
export interface InboundMessage {
  tenantId: string;
  botId: string;
  input: ChatInput;
  idempotencyKey: string | null;
  /**
   * What a repeated Idempotency-Key is compared with; by default the bot and the whole input. A
   * channel whose input changes between retries (the widget's conversation, opened by the first
   * attempt) gives its own.
   */
  requestHash?: string;
  /** The dashboard's test chat: the conversation is marked a test and the quota is not charged. */
  test?: boolean;
  /** What the adapter knows of the turn that its channel's guards read (guards.ts). */
  facts?: ChannelFacts;
}

/** The adapters' facts for the channel guards; a guard without its facts passes. */
export interface ChannelFacts {
  /** The received mail: its stored id and text without quotes, from which mailbox and sender. */
  email?: { mailboxId: string; inboundId: string; sender: string; strippedText: string };
  /** The widget's daily budget of messages for the bot. */
  widget?: { dailyBudget: number };
  /** The messaging connection and the customer's number. */
  messaging?: { connectionId: string; from: string };
}

export type ChatSource = Static<typeof ChatSourceSchema>;

/**
 * The response of the specification's table plus `sources`, `actions` and `blocks` (always
 * present here: empty when the reply shows none).
 */
export type ChatResponse = Static<typeof ChatResponseSchema> & { blocks: ChatBlock[] };

/** What a conversation turn ended with: the response, and whether it was a stored one replayed. */
export interface ChatOutcome {
  response: ChatResponse;
  replayed: boolean;
}

/** A knowledge hit as the chat cites it; file name and page only where the entry has them. */
export function chatSource(hit: KnowledgeHit): ChatSource {
  return {
    entry_id: hit.entryId,
    title: hit.title,
    score: hit.score,
    source_url: hit.sourceUrl,
    ...(hit.sourceName ? { source_name: hit.sourceName } : {}),
    ...(hit.sourcePage ? { page: hit.sourcePage } : {}),
  };
}

/** The body of a chat error: the error text, and the explaining sentence where there is one. */
export type ChatErrorBody = Static<typeof ChatErrorSchema>;

/**
 * A stream the reply's text goes out on while the model writes it (server-sent events). Every
 * check and the model's first event come before `open`: a failure until then is thrown (an
 * ordinary error response); after it, the stream ends with `fail`.
 */
export interface StreamSink {
  /** A stored response given again for a repeated Idempotency-Key. */
  replay(response: ChatResponse): void;
  /** The model's first event is there: the stream starts. */
  open(): void;
  delta(text: string): void;
  /** The exchange is stored: the whole response. */
  done(response: ChatResponse): void;
  /** A failure after `open` (an EngineRefusal or any error): nothing was stored or charged. */
  fail(error: unknown): void;
  /** Ends the stream (after `done`, `fail` or `replay`). */
  close(): void;
}

/**
 * A reply for a channel's sender, the bot's or a person's: what a channel delivery puts into
 * the outbox. One shape for both authors, so each channel has one sender and one payload.
 */
export interface OutboundReply {
  tenantId: string;
  botId: string;
  conversationId: string;
  channel: string;
  /** The sender the reply goes back to (the channel's address of the person); null: the channel finds it. */
  recipient: string | null;
  /** Who wrote it: the bot (stored with the exchange) or a person in the inbox. */
  from: 'bot' | 'person';
  /** The stored message of a person's reply; null for the bot's (stored with the exchange). */
  messageId: string | null;
  text: string;
  blocks: ChatBlock[];
  createdAt: Date;
}

/**
 * The output port of a channel (e-mail, messaging, widget, the API's webhook event): its
 * `enqueue` writes the reply's outbox row in the same transaction as the stored message, so the
 * reply leaves exactly when the message is stored (send-once and retries are the outbox's
 * part). The bot's replies and a person's replies from the inbox leave through it alike; a
 * channel may refuse a person's reply in words (an AppError) before anything is stored.
 */
export interface ChannelDelivery {
  enqueue(tx: Queryable, reply: OutboundReply): Promise<void>;
}

/** Per channel kind, the delivery of a person's reply from the inbox (composed in src/context.ts). */
export type ChannelDeliveries = Readonly<Record<ChannelKind, ChannelDelivery>>;

/**
 * How the reply leaves: returned whole (the JSON body: no port fields), streamed as it is
 * written (`stream`), or handed to a channel (`delivery`).
 */
export interface ReplyPort {
  stream?: StreamSink;
  delivery?: ChannelDelivery;
}

/** The JSON body: the reply comes back whole as the engine's result. */
export const WHOLE_REPLY: ReplyPort = {};

/**
 * Times the engine's stages from outside (the request's trace: log line and spans); the engine
 * itself knows nothing of tracing or metrics.
 */
export interface StageObserver {
  stage<T>(name: ChatStage, work: () => Promise<T>, step?: AdmissionStep): Promise<T>;
  /** A stage whose end comes later (the model's stream). */
  begin(name: ChatStage): void;
  end(name: ChatStage, step?: AdmissionStep, error?: unknown): void;
  modelChoice: ModelChoiceRecord | undefined;
  tokens(input: number, output: number, responseModel?: string): void;
}

/** What the engine needs from its caller besides the message and the port. */
export interface ConverseOptions {
  /** Aborts when the client goes away: the model call stops, nothing is stored or charged. */
  signal?: AbortSignal;
  /** Model outages are logged with their cause, which the client never sees. */
  log?: Pick<FastifyBaseLogger, 'warn' | 'error'>;
  observer?: StageObserver;
}
