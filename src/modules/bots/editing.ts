/**
 * Creating and changing a bot with what comes along: its first prompt version, a new version
 * for a changed prompt, and the check before an activation. The check is the pre-flight's,
 * which reads the bot's flow, knowledge and channels from modules above bots: the composition
 * root hands it over (`ctx.botActivationCheck`), so bots imports none of them.
 */
import type { Database, Queryable } from '../../db/database.js';
import { notFound } from '../../http/errors.js';
import { insertCurrentVersion } from './prompt-versions/service.js';
import { findBot, insertBot, lockBot, updateBot, type BotFields, type BotRow } from './repository.js';
import type { UpdateBotInput } from './schema.js';

/** Refuses (throws) the activation of a bot that is not ready; inside the edit's transaction. */
export type ActivationCheck = (tx: Queryable, tenantId: string, botId: string) => Promise<void>;

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
 * activation check (the pre-flight: refused, nothing written, while any block is red); a
 * changed system_prompt is stored as a new current prompt version.
 */
export function editBot(
  db: Database,
  tenantId: string,
  botId: string,
  change: UpdateBotInput,
  editedBy: string | null,
  checkActivation: ActivationCheck,
): Promise<BotRow> {
  return db.transaction(async (tx) => {
    const current = await lockBot(tx, tenantId, botId);
    if (!current) throw notFound('Bot');
    if (isActivation(current, change)) await checkActivation(tx, tenantId, botId);
    const { system_prompt: prompt, ...fields } = change;
    let bot = (await updateBot(tx, tenantId, botId, fields))!;
    if (prompt !== undefined && prompt !== current.system_prompt) {
      await insertCurrentVersion(tx, tenantId, { botId, promptText: prompt, createdBy: editedBy });
      bot = (await findBot(tx, tenantId, botId))!;
    }
    return bot;
  });
}
