/**
 * A person sends an approved WhatsApp template from the inbox (the one message WhatsApp
 * delivers once the 24-hour window is closed): a person's message (service.ts
 * `sendPersonMessage`) whose template messaging checks and queues (`prepareTemplateSend`), sent
 * at once after the commit. A refusal stores nothing.
 */
import type { AppContext } from '../../shared/context.js';
import type { AuthenticatedUser } from '../auth/index.js';
import { prepareTemplateSend, sendDueNow, type TemplateSend } from '../messaging/index.js';
import { sendPersonMessage } from './service.js';

export async function sendTemplate(
  ctx: AppContext,
  user: AuthenticatedUser,
  id: string,
  body: TemplateSend,
  log?: { warn(obj: object, msg: string): void },
) {
  const sent = await sendPersonMessage({ ...ctx, log }, user, id, async (tx, row) => {
    const prepared = await prepareTemplateSend(tx, user.tenantId, row.id, body);
    return { content: prepared.content, send: (sendTx, message) => prepared.queue(sendTx, message.id) };
  });
  // Sent now rather than at the outbox worker's next poll (the claim keeps it once).
  void sendDueNow(ctx);
  return sent;
}
