/**
 * A customer's message on a conversation a person holds: the bot stays silent and the message
 * is kept for the person. The inbox stores it and tells the open inbox (inbox/service.ts); the
 * composition root hands that over as `ctx.customerMessageRecorder`, so the chat's admission
 * reaches it without importing the inbox, which sits above the channels.
 */
import type { AppContext } from '../../shared/context.js';

/** Stores the message once (per Idempotency-Key); undefined when no person holds the conversation. */
export function recordCustomerMessage(
  ctx: AppContext,
  tenantId: string,
  conversationId: string,
  content: string,
  idempotencyKey: string | null = null,
): Promise<{ id: string; created_at: Date } | undefined> {
  return ctx.customerMessageRecorder(ctx, tenantId, conversationId, content, idempotencyKey);
}
