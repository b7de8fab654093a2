import { queryOne, type Queryable } from '../../db/database.js';
import type { TemplateRecord } from './templates.js';

export interface TemplateRow {
  connection_id: string;
  tenant_id: string;
  name: string;
  language: string;
  provider_id: string | null;
  status: string;
  category: string | null;
  body: string;
  components: unknown[];
  refreshed_at: Date;
}

/** Replaces a connection's templates with the provider's current list (one transaction: the caller's). */
export async function replaceTemplates(
  tx: Queryable,
  tenantId: string,
  connectionId: string,
  templates: TemplateRecord[],
): Promise<void> {
  await tx.query('DELETE FROM channel_templates WHERE connection_id = $1', [connectionId]);
  for (const t of templates) {
    await tx.query(
      `INSERT INTO channel_templates (connection_id, tenant_id, name, language, provider_id, status, category,
         body, components)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (connection_id, name, language) DO UPDATE SET provider_id = excluded.provider_id,
         status = excluded.status, category = excluded.category, body = excluded.body,
         components = excluded.components, refreshed_at = now()`,
      [
        connectionId,
        tenantId,
        t.name.slice(0, 512),
        t.language.slice(0, 20),
        t.providerId?.slice(0, 100) ?? null,
        t.status.slice(0, 40),
        t.category?.slice(0, 40) ?? null,
        t.body,
        JSON.stringify(t.components),
      ],
    );
  }
}

export function listTemplates(db: Queryable, connectionId: string): Promise<TemplateRow[]> {
  return db.query<TemplateRow>(
    'SELECT * FROM channel_templates WHERE connection_id = $1 ORDER BY name, language',
    [connectionId],
  );
}

export function findTemplate(
  db: Queryable,
  connectionId: string,
  name: string,
  language: string,
): Promise<TemplateRow | undefined> {
  return queryOne<TemplateRow>(
    db,
    'SELECT * FROM channel_templates WHERE connection_id = $1 AND name = $2 AND language = $3',
    [connectionId, name, language],
  );
}

/**
 * A template's new status, found by the provider's id or by name (and language when given);
 * the number of templates changed (0: not known here yet).
 */
export async function setTemplateStatus(
  db: Queryable,
  connectionId: string,
  match: { providerId: string | null; name: string; language: string | null },
  status: string,
): Promise<number> {
  const rows = await db.query(
    `UPDATE channel_templates SET status = $5, refreshed_at = now()
     WHERE connection_id = $1
       AND (provider_id = $2::varchar OR (name = $3 AND ($4::varchar IS NULL OR language = $4::varchar)))
     RETURNING name`,
    [connectionId, match.providerId, match.name, match.language, status.slice(0, 40)],
  );
  return rows.length;
}

/** The Content SID Parley created for this connection and content key, if any. */
export async function findContentSid(
  db: Queryable,
  connectionId: string,
  key: string,
): Promise<string | null> {
  const row = await queryOne<{ content_sid: string }>(
    db,
    'SELECT content_sid FROM channel_contents WHERE connection_id = $1 AND content_key = $2',
    [connectionId, key],
  );
  return row?.content_sid ?? null;
}

/** Keeps a created Content SID; when another send created one first, that one is the answer. */
export async function storeContentSid(
  db: Queryable,
  connectionId: string,
  key: string,
  sid: string,
): Promise<string> {
  await db.query(
    `INSERT INTO channel_contents (tenant_id, connection_id, content_key, content_sid)
     SELECT c.tenant_id, c.id, $2, $3 FROM channel_connections c WHERE c.id = $1
     ON CONFLICT (connection_id, content_key) DO NOTHING`,
    [connectionId, key, sid],
  );
  return (await findContentSid(db, connectionId, key)) ?? sid;
}
