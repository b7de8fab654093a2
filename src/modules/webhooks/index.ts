/** The public surface of the webhooks module: what other modules may import (see docs/ARCHITECTURE.md). */
export { enqueueConversationMessage, enqueueEvent } from './outbox.js';
export {
  ConversationEndedBody,
  EscalationBody,
  LeadBody,
  LeadResponse,
  RatingBody,
  TransitionResponse,
} from './schema.js';
export { resealSigningSecrets } from './secret-box.js';
export { createWebhookSender } from './sender.js';
