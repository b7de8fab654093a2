import type { Queryable } from '../../db/database.js';
import { notFound } from '../../http/errors.js';
import { isUuid } from '../../shared/ids.js';
import { findBot } from '../bots/index.js';
import { hasTestExchange } from '../conversations/index.js';
import { countKnowledgeFor } from '../knowledge/index.js';
import { listBotMailboxes } from '../mailboxes/index.js';
import { runPreflight } from '../preflight/index.js';
import { widgetChannels } from '../widget/index.js';
import { goLiveChecklist, type GoLiveChecklist } from './rules.js';

/** The bot's go-live checklist from its current state; 404 for a bot of another tenant. */
export async function checklistOf(db: Queryable, tenantId: string, botId: string): Promise<GoLiveChecklist> {
  const bot = isUuid(botId) ? await findBot(db, tenantId, botId) : undefined;
  if (!bot) throw notFound('Bot');
  const [knowledgeEntries, preflight, widget, mailboxes, testExchange] = await Promise.all([
    countKnowledgeFor(db, tenantId, botId),
    runPreflight(db, tenantId, botId),
    widgetChannels(db, tenantId, botId),
    listBotMailboxes(db, tenantId, botId),
    hasTestExchange(db, tenantId, botId),
  ]);
  return goLiveChecklist({
    prompt: bot.system_prompt,
    knowledgeEntries,
    preflightGreen: preflight.canActivate,
    widgetLive: widget.widget_live,
    shareLink: widget.share_link,
    mailboxes: mailboxes.filter((m) => m.is_active).length,
    testExchange,
    isActive: bot.is_active && bot.status !== 'disabled',
  });
}
