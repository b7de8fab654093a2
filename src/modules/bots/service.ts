import type { Database } from '../../db/database.js';
import { insertCurrentVersion } from '../prompt-versions/repository.js';
import { insertBot, type BotFields, type BotRow } from './repository.js';

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
