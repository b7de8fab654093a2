import type { Database, Queryable } from '../../../db/database.js';
import { conflict, notFound } from '../../../http/errors.js';
import { setSystemPrompt } from '../service.js';
import { findBot, lockBot } from '../repository.js';
import { diffPrompts, type PromptDiff } from './diff.js';
import {
  deleteNonCurrentVersion,
  findCurrentVersion,
  findVersion,
  insertCurrentVersion as insertVersionRow,
  listVersions,
  makeVersionCurrent,
  type PromptVersionRow,
} from './repository.js';

/**
 * Used by bots when a bot is created or its prompt changes: the prompt becomes the current
 * version and the bot's system_prompt. Runs inside a transaction that has locked the bot row.
 */
export async function insertCurrentVersion(
  tx: Queryable,
  tenantId: string,
  input: Parameters<typeof insertVersionRow>[2],
): Promise<PromptVersionRow> {
  const version = await insertVersionRow(tx, tenantId, input);
  await setSystemPrompt(tx, tenantId, input.botId, input.promptText);
  return version;
}

export interface SavePromptVersionInput {
  tenantId: string;
  botId: string;
  promptText: string;
  versionName?: string | null;
  changeNotes?: string | null;
  createdBy: string | null;
}

export interface VersionRef {
  tenantId: string;
  botId: string;
  versionId: string;
}

export async function listPromptVersions(
  db: Queryable,
  tenantId: string,
  botId: string,
): Promise<{ versions: PromptVersionRow[]; current: PromptVersionRow | null; currentPrompt: string }> {
  const bot = await findBot(db, tenantId, botId);
  if (!bot) throw notFound('Bot');
  const versions = await listVersions(db, tenantId, botId);
  return {
    versions,
    current: versions.find((v) => v.is_current) ?? null,
    currentPrompt: bot.system_prompt,
  };
}

/**
 * Saves a new current version and makes it the bot's prompt. Locking the bot row serialises
 * concurrent saves, so numbers never repeat or skip.
 */
export function savePromptVersion(db: Database, input: SavePromptVersionInput): Promise<PromptVersionRow> {
  return db.transaction(async (tx) => {
    if (!(await lockBot(tx, input.tenantId, input.botId))) throw notFound('Bot');
    return insertCurrentVersion(tx, input.tenantId, {
      botId: input.botId,
      promptText: input.promptText,
      versionName: input.versionName ?? null,
      changeNotes: input.changeNotes ?? null,
      createdBy: input.createdBy,
    });
  });
}

/** Makes an earlier version current again and puts its text back into the bot's prompt. */
export function restorePromptVersion(db: Database, ref: VersionRef): Promise<PromptVersionRow> {
  return db.transaction(async (tx) => {
    if (!(await lockBot(tx, ref.tenantId, ref.botId))) throw notFound('Bot');
    const version = await makeVersionCurrent(tx, ref.tenantId, ref.botId, ref.versionId);
    if (!version) throw notFound('Prompt version');
    await setSystemPrompt(tx, ref.tenantId, ref.botId, version.prompt_text);
    return version;
  });
}

/** Deletes a version; the current one and the last remaining one are kept (409). */
export function deletePromptVersion(db: Database, ref: VersionRef): Promise<void> {
  return db.transaction(async (tx) => {
    if (!(await lockBot(tx, ref.tenantId, ref.botId))) throw notFound('Bot');
    if (await deleteNonCurrentVersion(tx, ref.tenantId, ref.botId, ref.versionId)) return;
    // Nothing was deleted: say why. The bot lock keeps these reads consistent with the attempt.
    const version = await findVersion(tx, ref.tenantId, ref.botId, ref.versionId);
    if (!version) throw notFound('Prompt version');
    if ((await listVersions(tx, ref.tenantId, ref.botId)).length <= 1) {
      throw conflict('The last remaining version of a bot cannot be deleted', {
        code: 'prompt_version_last',
        reason: 'last_version',
      });
    }
    throw conflict(
      `Version ${version.version_number} is the current version and cannot be deleted; restore another version first`,
      { code: 'prompt_version_current', reason: 'current_version' },
    );
  });
}

/** Line diff from `againstId` (default: the current version) to `versionId`. */
export async function diffPromptVersions(
  db: Queryable,
  ref: VersionRef & { againstId?: string },
): Promise<{ from: PromptVersionRow; to: PromptVersionRow; diff: PromptDiff }> {
  if (!(await findBot(db, ref.tenantId, ref.botId))) throw notFound('Bot');
  const to = await findVersion(db, ref.tenantId, ref.botId, ref.versionId);
  if (!to) throw notFound('Prompt version');
  const from =
    ref.againstId === undefined
      ? await findCurrentVersion(db, ref.tenantId, ref.botId)
      : await findVersion(db, ref.tenantId, ref.botId, ref.againstId);
  if (!from)
    throw notFound(ref.againstId === undefined ? 'Current prompt version' : 'Version to compare against');
  const label = (v: PromptVersionRow) => `version ${v.version_number}`;
  return { from, to, diff: diffPrompts(label(from), from.prompt_text, label(to), to.prompt_text) };
}
