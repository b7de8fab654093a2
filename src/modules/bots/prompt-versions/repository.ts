import type { Queryable } from '../../../db/database.js';
import { queryOne } from '../../../db/database.js';
import { isUuid } from '../../../shared/ids.js';

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
 * Stores a new current version (the service copies it into the bot's system_prompt). The caller runs this
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
  return version;
}

/** A bot's versions, newest first; numbering breaks ties within the same instant. */
export function listVersions(db: Queryable, tenantId: string, botId: string): Promise<PromptVersionRow[]> {
  return db.query<PromptVersionRow>(
    `SELECT * FROM bot_prompt_versions WHERE tenant_id = $1 AND bot_id = $2
     ORDER BY created_at DESC, version_number DESC`,
    [tenantId, botId],
  );
}

export function findVersion(
  db: Queryable,
  tenantId: string,
  botId: string,
  versionId: string,
): Promise<PromptVersionRow | undefined> {
  if (!isUuid(versionId)) return Promise.resolve(undefined);
  return queryOne<PromptVersionRow>(
    db,
    'SELECT * FROM bot_prompt_versions WHERE tenant_id = $1 AND bot_id = $2 AND id = $3',
    [tenantId, botId, versionId],
  );
}

export function findCurrentVersion(
  db: Queryable,
  tenantId: string,
  botId: string,
): Promise<PromptVersionRow | undefined> {
  return queryOne<PromptVersionRow>(
    db,
    'SELECT * FROM bot_prompt_versions WHERE tenant_id = $1 AND bot_id = $2 AND is_current',
    [tenantId, botId],
  );
}

/**
 * Moves the current flag to the version (the service copies its text into the bot's system_prompt).
 * Runs inside a transaction that has locked the bot row.
 */
export async function makeVersionCurrent(
  tx: Queryable,
  tenantId: string,
  botId: string,
  versionId: string,
): Promise<PromptVersionRow | undefined> {
  if (!(await findVersion(tx, tenantId, botId, versionId))) return undefined;
  await tx.query(
    `UPDATE bot_prompt_versions SET is_current = false
     WHERE tenant_id = $1 AND bot_id = $2 AND is_current AND id <> $3`,
    [tenantId, botId, versionId],
  );
  const version = (await queryOne<PromptVersionRow>(
    tx,
    `UPDATE bot_prompt_versions SET is_current = true
     WHERE tenant_id = $1 AND bot_id = $2 AND id = $3 RETURNING *`,
    [tenantId, botId, versionId],
  ))!;
  return version;
}

/**
 * Deletes a version only when it is neither current nor the bot's last one; returns whether a
 * row went. The conditions sit in the statement itself, so no interleaving can break them.
 */
export async function deleteNonCurrentVersion(
  tx: Queryable,
  tenantId: string,
  botId: string,
  versionId: string,
): Promise<boolean> {
  if (!isUuid(versionId)) return false;
  const rows = await tx.query(
    `DELETE FROM bot_prompt_versions v
     WHERE v.tenant_id = $1 AND v.bot_id = $2 AND v.id = $3 AND NOT v.is_current
       AND (SELECT count(*) FROM bot_prompt_versions o WHERE o.tenant_id = $1 AND o.bot_id = $2) > 1
     RETURNING v.id`,
    [tenantId, botId, versionId],
  );
  return rows.length > 0;
}
