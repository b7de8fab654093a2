import type { AppContext } from '../../shared/context.js';
import { notFound } from '../../http/errors.js';
import type { AuthenticatedUser } from '../auth/index.js';
import { publishTyping } from '../conversations/index.js';
import * as repo from './repository.js';

/** A person types in a conversation of the tenant: its streams (the widget) hear their name. */
export async function personTyping(
  ctx: Pick<AppContext, 'db' | 'coordination'>,
  user: AuthenticatedUser,
  id: string,
) {
  const row = await repo.findInboxConversation(ctx.db, user.tenantId, user.id, id);
  if (!row) throw notFound('Conversation');
  const name = await repo.displayNameOf(ctx.db, user.tenantId, user.id);
  await publishTyping(ctx, user.tenantId, id, { from: 'person', name });
  return { ok: true };
}
