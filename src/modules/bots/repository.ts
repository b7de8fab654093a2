import type { Queryable } from '../../db/database.js';
import { queryOne } from '../../db/database.js';
import { cursorTimestampSql, type TimeCursor } from '../../shared/pagination.js';
import { isUuid } from '../../shared/ids.js';
import { kindsWhere } from '../channels/index.js';

export const BOT_KINDS = ['standard', 'smart', 'specialized'] as const;
export const BOT_STATUSES = ['draft', 'active', 'disabled'] as const;
/** The channels a bot may be named for (the channel registry's `botChannel`). */
export const BOT_CHANNELS = kindsWhere('botChannel');

export interface BotRow {
  id: string;
  tenant_id: string;
  name: string;
  description: string | null;
  kind: (typeof BOT_KINDS)[number];
  is_active: boolean;
  status: (typeof BOT_STATUSES)[number];
  system_prompt: string;
  system_prompt_generated: string | null;
  knowledge_strictness: number;
  knowledge_min_score: number | null;
  emoji_usage: number;
  formal_address: boolean;
  industry_code: string | null;
  model: string | null;
  channels: string[];
  created_at: Date;
  updated_at: Date;
}

/** Writable bot fields (snake_case, as the API names them). */
export type BotFields = Partial<
  Pick<
    BotRow,
    | 'name'
    | 'description'
    | 'kind'
    | 'is_active'
    | 'status'
    | 'system_prompt'
    | 'knowledge_strictness'
    | 'knowledge_min_score'
    | 'emoji_usage'
    | 'formal_address'
    | 'industry_code'
    | 'model'
    | 'channels'
  >
>;

const WRITABLE: (keyof BotFields)[] = [
  'name',
  'description',
  'kind',
  'is_active',
  'status',
  'system_prompt',
  'knowledge_strictness',
  'knowledge_min_score',
  'emoji_usage',
  'formal_address',
  'industry_code',
  'model',
  'channels',
];

/**
 * The value stored for a column. knowledge_min_score is a `real`: a score with more than six
 * decimals (e.g. 1e-190, which PostgreSQL refuses as an underflow) is rounded to six.
 */
function columnValue(fields: BotFields, column: keyof BotFields): unknown {
  const value = fields[column];
  return column === 'knowledge_min_score' && typeof value === 'number'
    ? Math.round(value * 1e6) / 1e6
    : value;
}

export async function insertBot(
  db: Queryable,
  tenantId: string,
  fields: BotFields & { name: string },
): Promise<BotRow> {
  const columns = WRITABLE.filter((c) => fields[c] !== undefined);
  const values = columns.map((c) => columnValue(fields, c));
  const placeholders = columns.map((_, i) => `$${i + 2}`);
  return (await queryOne<BotRow>(
    db,
    `INSERT INTO bots (tenant_id, ${columns.join(', ')}) VALUES ($1, ${placeholders.join(', ')}) RETURNING *`,
    [tenantId, ...values],
  ))!;
}

export async function updateBot(
  db: Queryable,
  tenantId: string,
  botId: string,
  fields: BotFields,
): Promise<BotRow | undefined> {
  const columns = WRITABLE.filter((c) => fields[c] !== undefined);
  if (columns.length === 0) return findBot(db, tenantId, botId);
  const sets = columns.map((c, i) => `${c} = $${i + 3}`);
  return queryOne<BotRow>(
    db,
    `UPDATE bots SET ${sets.join(', ')}, updated_at = now() WHERE tenant_id = $1 AND id = $2 RETURNING *`,
    [tenantId, botId, ...columns.map((c) => columnValue(fields, c))],
  );
}

/** Stores the prompt text the pre-flight injects (null clears it); undefined when the bot is not the tenant's. */
export function setGeneratedPrompt(
  db: Queryable,
  tenantId: string,
  botId: string,
  prompt: string | null,
): Promise<{ id: string; updated_at: Date } | undefined> {
  return queryOne<{ id: string; updated_at: Date }>(
    db,
    `UPDATE bots SET system_prompt_generated = $3, updated_at = now()
     WHERE tenant_id = $1 AND id = $2 RETURNING id, updated_at`,
    [tenantId, botId, prompt],
  );
}

/** A bot of the tenant; another tenant's bot is indistinguishable from a missing one. */
export function findBot(db: Queryable, tenantId: string, botId: string): Promise<BotRow | undefined> {
  if (!isUuid(botId)) return Promise.resolve(undefined);
  return queryOne<BotRow>(db, 'SELECT * FROM bots WHERE tenant_id = $1 AND id = $2', [tenantId, botId]);
}

/** Locks the bot row for the rest of the transaction (serialises writes per bot). */
export function lockBot(db: Queryable, tenantId: string, botId: string): Promise<BotRow | undefined> {
  if (!isUuid(botId)) return Promise.resolve(undefined);
  return queryOne<BotRow>(db, 'SELECT * FROM bots WHERE tenant_id = $1 AND id = $2 FOR UPDATE', [
    tenantId,
    botId,
  ]);
}

/**
 * Holds the bot for the rest of the transaction so it cannot be deleted (FOR KEY SHARE: edits
 * of the bot go on); false when the bot is not the tenant's.
 */
export async function holdBot(db: Queryable, tenantId: string, botId: string): Promise<boolean> {
  if (!isUuid(botId)) return false;
  const row = await queryOne(db, 'SELECT id FROM bots WHERE tenant_id = $1 AND id = $2 FOR KEY SHARE', [
    tenantId,
    botId,
  ]);
  return row !== undefined;
}

export interface BotListOptions {
  isActive?: boolean;
  status?: BotRow['status'];
  /** Rows strictly after this position (newest first). */
  after?: TimeCursor;
  /** Rows to fetch (callers ask for one more than a page). */
  limit: number;
}

/** The tenant's bots, newest first, with each row's cursor position. */
export function listBots(
  db: Queryable,
  tenantId: string,
  options: BotListOptions,
): Promise<(BotRow & { cursor_at: string })[]> {
  const params: unknown[] = [tenantId];
  const where = ['tenant_id = $1'];
  if (options.isActive !== undefined) {
    params.push(options.isActive);
    where.push(`is_active = $${params.length}`);
  }
  if (options.status !== undefined) {
    params.push(options.status);
    where.push(`status = $${params.length}`);
  }
  if (options.after) {
    params.push(options.after.at, options.after.id);
    where.push(`(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
  }
  params.push(options.limit);
  return db.query(
    `SELECT *, ${cursorTimestampSql('created_at')} AS cursor_at FROM bots
     WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
}

/** Removes the bot; its conversations, messages and prompt versions go with it (ON DELETE CASCADE). */
export async function deleteBot(db: Queryable, tenantId: string, botId: string): Promise<boolean> {
  if (!isUuid(botId)) return false;
  const rows = await db.query('DELETE FROM bots WHERE tenant_id = $1 AND id = $2 RETURNING id', [
    tenantId,
    botId,
  ]);
  return rows.length > 0;
}
