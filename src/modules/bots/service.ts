import type { Database, Queryable } from '../../db/database.js';
import { conflict, notFound } from '../../http/errors.js';
import { decodeTimeCursor, DEFAULT_PAGE_SIZE, encodeTimeCursor, splitPage } from '../../shared/pagination.js';
import { runPreflight } from '../preflight/service.js';
import { insertCurrentVersion } from '../prompt-versions/repository.js';
import {
  deleteBot,
  findBot,
  insertBot,
  listBots,
  lockBot,
  updateBot,
  type BotFields,
  type BotRow,
} from './repository.js';
import type { BotListFilters, BotResponse, UpdateBotInput } from './schema.js';

const BOT_LIST = 'bots';

/** Creates a bot; a bot created with a prompt also gets its first prompt version. */
export function createBot(
  db: Database,
  tenantId: string,
  fields: BotFields & { name: string },
  createdBy: string | null = null,
): Promise<BotRow> {
  return db.transaction(async (tx) => {
    const bot = await insertBot(tx, tenantId, fields);
    if (bot.system_prompt.trim() !== '') {
      await insertCurrentVersion(tx, tenantId, {
        botId: bot.id,
        promptText: bot.system_prompt,
        versionName: 'Initial',
        createdBy,
      });
    }
    return bot;
  });
}

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
 * A change that switches the bot on: is_active turns true, or status turns active. Setting a
 * value the bot already has is not an activation (nothing is switched on).
 */
export function isActivation(current: Pick<BotRow, 'is_active' | 'status'>, change: UpdateBotInput): boolean {
  const turnsActive = change.is_active === true && !current.is_active;
  const turnsStatusActive = change.status === 'active' && current.status !== 'active';
  return turnsActive || turnsStatusActive;
}

/**
 * Changes a bot in one transaction under the bot's row lock. An activation first runs the
 * pre-flight check and is refused (nothing written) while any block is red; a changed
 * system_prompt is stored as a new current prompt version.
 */
export function editBot(
  db: Database,
  tenantId: string,
  botId: string,
  change: UpdateBotInput,
  editedBy: string | null,
): Promise<BotRow> {
  return db.transaction(async (tx) => {
    const current = await lockBot(tx, tenantId, botId);
    if (!current) throw notFound('Bot');
    if (isActivation(current, change)) {
      const preflight = await runPreflight(tx, tenantId, botId);
      if (!preflight.canActivate) {
        const redBlocks = preflight.blocks.filter((block) => block.status === 'red');
        throw conflict(
          `The bot cannot be activated: ${redBlocks.length} block(s) of its flow have no routing (pre-flight red)`,
          { code: 'bot_activation_blocked', field: 'is_active', red_blocks: redBlocks },
        );
      }
    }
    const { system_prompt: prompt, ...fields } = change;
    let bot = (await updateBot(tx, tenantId, botId, fields))!;
    if (prompt !== undefined && prompt !== current.system_prompt) {
      await insertCurrentVersion(tx, tenantId, { botId, promptText: prompt, createdBy: editedBy });
      bot = (await findBot(tx, tenantId, botId))!;
    }
    return bot;
  });
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
