/**
 * Saved replies: the team's text snippets for the inbox (one list per tenant), each with a short
 * name that the reply box expands from `/name`. Everyone who works in the inbox reads them;
 * owners, admins and editors keep them (`saved_reply:manage`).
 */
import type { Database } from '../../db/database.js';
import { badRequest, conflict, notFound } from '../../http/errors.js';
import * as repo from './repository.js';

export function serializeSavedReply(row: repo.SavedReplyRow) {
  return {
    id: row.id,
    name: row.name,
    content: row.content,
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

const nameTaken = (name: string) =>
  conflict(`A saved reply named '${name}' exists already`, { code: 'saved_reply_name_taken', field: 'name' });

function content(value: string): string {
  const trimmed = value.trim();
  if (trimmed === '')
    throw badRequest('content must not be blank', { code: 'field_blank', field: 'content' });
  return trimmed;
}

export async function listSavedReplies(db: Database, tenantId: string) {
  return { data: (await repo.listSavedReplies(db, tenantId)).map(serializeSavedReply) };
}

export async function createSavedReply(
  db: Database,
  tenantId: string,
  userId: string,
  input: { name: string; content: string },
) {
  const row = await repo.insertSavedReply(db, tenantId, {
    name: input.name,
    content: content(input.content),
    createdBy: userId,
  });
  if (!row) throw nameTaken(input.name);
  return serializeSavedReply(row);
}

export async function editSavedReply(
  db: Database,
  tenantId: string,
  id: string,
  input: { name?: string | undefined; content?: string | undefined },
) {
  const fields = {
    name: input.name,
    content: input.content === undefined ? undefined : content(input.content),
  };
  const row = await db.transaction(async (tx) => {
    if (!(await repo.findSavedReply(tx, tenantId, id))) throw notFound('Saved reply');
    if (fields.name !== undefined && (await repo.nameTaken(tx, tenantId, fields.name, id))) {
      throw nameTaken(fields.name);
    }
    return repo.updateSavedReply(tx, tenantId, id, fields);
  });
  return serializeSavedReply(row!);
}

export async function removeSavedReply(db: Database, tenantId: string, id: string): Promise<void> {
  if (!(await repo.deleteSavedReply(db, tenantId, id))) throw notFound('Saved reply');
}
