/**
 * A person sends an approved WhatsApp template from the inbox (the one message WhatsApp
 * delivers once the 24-hour window is closed): the inbox's action under its lock and state
 * machine; messaging checks the template and queues the provider message
 * (`prepareTemplateSend`), stored as the person's message and queued in one transaction, sent
 * at once after the commit. A refusal stores nothing.
 */
import type { AppContext } from '../../shared/context.js';
import type { AuthenticatedUser } from '../auth/index.js';
import { insertStaffMessage, publishMessage } from '../conversations/index.js';
import { prepareTemplateSend, sendDueNow, type TemplateSend } from '../messaging/index.js';
import * as repo from './repository.js';
import { act } from './service.js';

export async function sendTemplate(
  ctx: AppContext,
  user: AuthenticatedUser,
  id: string,
  body: TemplateSend,
  log?: { warn(obj: object, msg: string): void },
) {
  const result = await act({ ...ctx, log }, user, id, 'reply', {
    work: async (tx, row) => {
      const prepared = await prepareTemplateSend(tx, user.tenantId, row.id, body);
      const message = (await insertStaffMessage(tx, user.tenantId, row, {
        role: 'assistant',
        content: prepared.content,
        authorUserId: user.id,
      }))!;
      await prepared.queue(tx, message.id);
      await repo.markReadBy(tx, user.tenantId, id, user.id);
      return { ...message, content: prepared.content };
    },
  });
  const message = result.extra!;
  await publishMessage(ctx, user.tenantId, id, message.id);
  // Sent now rather than at the outbox worker's next poll (the claim keeps it once).
  void sendDueNow(ctx);
  return {
    id: message.id,
    conversation_id: id,
    role: 'assistant' as const,
    content: message.content,
    author_user_id: user.id,
    created_at: message.created_at.toISOString(),
  };
}
