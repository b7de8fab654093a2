import type { Queryable } from '../../db/database.js';
import { queryOne } from '../../db/database.js';

export interface PromptVersionRow {
  id: string;
  bot_id: string;
  tenant_id: string;
  prompt_text: string;
  version_name: string | null;
  change_notes: string | null;
  version_number: number;
  is_current: boolean;
  created_by: string | null;
  created_at: Date;
}

/**
 * Stores a new current version and makes it the bot's system_prompt. The caller runs this
 * inside a transaction that has locked the bot row (lockBot), which serialises numbering.
 */
export async function insertCurrentVersion(
  tx: Queryable,
  tenantId: string,
  input: {
    botId: string;
    promptText: string;
    versionName?: string | null;
    changeNotes?: string | null;
    createdBy?: string | null;
  },
): Promise<PromptVersionRow> {
  await tx.query(
    'UPDATE bot_prompt_versions SET is_current = false WHERE tenant_id = $1 AND bot_id = $2 AND is_current',
    [tenantId, input.botId],
  );
  const version = (await queryOne<PromptVersionRow>(
    tx,
    `INSERT INTO bot_prompt_versions
       (tenant_id, bot_id, prompt_text, version_name, change_notes, created_by, is_current, version_number)
     VALUES ($1, $2, $3, $4, $5, $6, true,
       (SELECT coalesce(max(version_number), 0) + 1 FROM bot_prompt_versions WHERE bot_id = $2))
     RETURNING *`,
    [
      tenantId,
      input.botId,
      input.promptText,
      input.versionName ?? null,
      input.changeNotes ?? null,
      input.createdBy ?? null,
    ],
  ))!;
  await tx.query('UPDATE bots SET system_prompt = $3, updated_at = now() WHERE tenant_id = $1 AND id = $2', [
    tenantId,
    input.botId,
    input.promptText,
  ]);
  return version;
}
