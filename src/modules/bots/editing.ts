/**
 * Creating and changing a bot with what comes along: its first prompt version, a new version
 * for a changed prompt, and the pre-flight check before an activation. It sits above the bots
 * service, which prompt-versions, preflight and flow read, so that no import goes in a circle.
 */
import type { Database } from '../../db/database.js';
import { conflict, notFound } from '../../http/errors.js';
import { runPreflight } from '../preflight/service.js';
import { insertCurrentVersion } from '../prompt-versions/service.js';
import { findBot, insertBot, lockBot, updateBot, type BotFields, type BotRow } from './repository.js';
import type { UpdateBotInput } from './schema.js';

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
