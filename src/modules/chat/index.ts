/** The public surface of the chat module: what other modules may import (see docs/ARCHITECTURE.md). */
export { answerChat } from './answer.js';
export type { ChatExtension, ChatTurn } from './extensions.js';
export { requestFingerprint } from './idempotency.js';
export { converse } from './pipeline/engine.js';
export { PASS, guardReasonText, type ChannelGuard, type ChannelGuards } from './pipeline/guards.js';
export type {
  ChannelDeliveries,
  ChannelDelivery,
  ChatErrorBody,
  ChatResponse,
  OutboundReply,
  StreamSink,
} from './pipeline/types.js';
export { quotaPeriod } from './quota.js';
export { conversationRefusals, forgetRefusalsOfPerson, refusalsOfPerson } from './refusals.js';
export { sweepExpiredReservations } from './repository.js';
export { parseChatRequest, parseIdempotencyKey, type ChatChannel } from './request.js';
export { ChatBlockSchema, ChatChoiceSchema, ChatResponseSchema } from './schema.js';
