import { queryOne, type Queryable } from '../../db/database.js';
import { isUuid } from '../../shared/ids.js';

export interface SavedReplyRow {
  id: string;
  tenant_id: string;
  name: string;
  content: string;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, tenant_id, name, content, created_by, created_at, updated_at';

export function listSavedReplies(db: Queryable, tenantId: string): Promise<SavedReplyRow[]> {
  return db.query(`SELECT ${COLUMNS} FROM saved_replies WHERE tenant_id = $1 ORDER BY name LIMIT 500`, [
    tenantId,
  ]);
}

/** Inserts the reply; undefined when the tenant has one of that name already. */
export function insertSavedReply(
  db: Queryable,
  tenantId: string,
  input: { name: string; content: string; createdBy: string },
): Promise<SavedReplyRow | undefined> {
  return queryOne(
    db,
    `INSERT INTO saved_replies (tenant_id, name, content, created_by) VALUES ($1, $2, $3, $4)
     ON CONFLICT (tenant_id, name) DO NOTHING RETURNING ${COLUMNS}`,
    [tenantId, input.name, input.content, input.createdBy],
  );
}

export function findSavedReply(
  db: Queryable,
  tenantId: string,
  id: string,
): Promise<SavedReplyRow | undefined> {
  if (!isUuid(id)) return Promise.resolve(undefined);
  return queryOne(db, `SELECT ${COLUMNS} FROM saved_replies WHERE tenant_id = $1 AND id = $2`, [
    tenantId,
    id,
  ]);
}

/** Whether another reply of the tenant has the name. */
export async function nameTaken(
  db: Queryable,
  tenantId: string,
  name: string,
  exceptId: string,
): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM saved_replies WHERE tenant_id = $1 AND name = $2 AND id <> $3', [
    tenantId,
    name,
    exceptId,
  ]);
  return rows.length > 0;
}

export function updateSavedReply(
  db: Queryable,
  tenantId: string,
  id: string,
  fields: { name?: string | undefined; content?: string | undefined },
): Promise<SavedReplyRow | undefined> {
  return queryOne(
    db,
    `UPDATE saved_replies SET name = coalesce($3, name), content = coalesce($4, content), updated_at = now()
     WHERE tenant_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [tenantId, id, fields.name ?? null, fields.content ?? null],
  );
}

export async function deleteSavedReply(db: Queryable, tenantId: string, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const rows = await db.query('DELETE FROM saved_replies WHERE tenant_id = $1 AND id = $2 RETURNING id', [
    tenantId,
    id,
  ]);
  return rows.length > 0;
}
