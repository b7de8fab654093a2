/**
 * The bots table's owner: every other module reads and writes a bot through here. Creating
 * and changing a bot together with its prompt version and pre-flight check is in editing.ts,
 * above the modules (prompt-versions, preflight, flow) that read bots from this file.
 */
import type { Queryable } from '../../db/database.js';
import { notFound } from '../../http/errors.js';
import { decodeTimeCursor, DEFAULT_PAGE_SIZE, encodeTimeCursor, splitPage } from '../../shared/pagination.js';
import { deleteBot, findBot, listBots, updateBot, type BotRow } from './repository.js';
import type { BotListFilters, BotResponse } from './schema.js';

/**
 * Reads other modules use: the bot row by id (undefined when absent), with a row lock, and
 * held against deletion (FOR KEY SHARE); the pre-flight's generated prompt.
 */

const BOT_LIST = 'bots';

/** One page of the tenant's bots, newest first. */
export async function listBotsPage(db: Queryable, tenantId: string, filters: BotListFilters) {
  const limit = filters.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await listBots(db, tenantId, {
    isActive: filters.is_active,
    status: filters.status,
    after: decodeTimeCursor(BOT_LIST, filters.cursor),
    limit: limit + 1,
  });
  const page = splitPage(rows, limit, (last) =>
    encodeTimeCursor(BOT_LIST, { at: last.cursor_at, id: last.id }),
  );
  return { data: page.data.map(serializeBot), next_cursor: page.next_cursor };
}

export async function getBot(db: Queryable, tenantId: string, botId: string): Promise<BotRow> {
  const bot = await findBot(db, tenantId, botId);
  if (!bot) throw notFound('Bot');
  return bot;
}

/**
 * Sets the bot's editable prompt (prompt versions keep it equal to the current version);
 * undefined when the bot is not the tenant's.
 */
export function setSystemPrompt(
  tx: Queryable,
  tenantId: string,
  botId: string,
  prompt: string,
): Promise<BotRow | undefined> {
  return updateBot(tx, tenantId, botId, { system_prompt: prompt });
}

export async function removeBot(db: Queryable, tenantId: string, botId: string): Promise<void> {
  if (!(await deleteBot(db, tenantId, botId))) throw notFound('Bot');
}

/** The public view of a bot: every field except the owner (tenant_id) and paging internals. */
export function serializeBot(bot: BotRow): BotResponse {
  return {
    id: bot.id,
    name: bot.name,
    description: bot.description,
    kind: bot.kind,
    is_active: bot.is_active,
    status: bot.status,
    system_prompt: bot.system_prompt,
    system_prompt_generated: bot.system_prompt_generated,
    knowledge_strictness: bot.knowledge_strictness,
    knowledge_min_score: bot.knowledge_min_score,
    emoji_usage: bot.emoji_usage,
    formal_address: bot.formal_address,
    industry_code: bot.industry_code,
    model: bot.model,
    channels: bot.channels,
    created_at: bot.created_at.toISOString(),
    updated_at: bot.updated_at.toISOString(),
  };
}
