import { queryOne, type Queryable } from '../../../db/database.js';
import { cursorTimestampSql, type TimeCursor } from '../../../shared/pagination.js';
import type { Role } from '../permissions.js';

export interface InvitationRow {
  id: string;
  email: string;
  role: Role;
  invited_by: string | null;
  created_at: Date;
  expires_at: Date;
  sent_at: Date | null;
}

const INVITATION_COLUMNS = 'id, email, role, invited_by, created_at, expires_at, sent_at';

export async function insertInvitation(
  db: Queryable,
  tenantId: string,
  invitation: { email: string; role: Role; tokenHash: string; invitedBy: string; expiresAt: Date },
): Promise<InvitationRow> {
  return (await queryOne<InvitationRow>(
    db,
    `INSERT INTO user_invitations (tenant_id, email, role, token_hash, invited_by, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${INVITATION_COLUMNS}`,
    [
      tenantId,
      invitation.email,
      invitation.role,
      invitation.tokenHash,
      invitation.invitedBy,
      invitation.expiresAt,
    ],
  ))!;
}

/** Whether the address belongs to a user of this tenant (another tenant's users are not looked at). */
export async function isTenantMember(db: Queryable, tenantId: string, email: string): Promise<boolean> {
  const row = await queryOne(db, 'SELECT 1 FROM users WHERE tenant_id = $1 AND lower(email) = lower($2)', [
    tenantId,
    email,
  ]);
  return row !== undefined;
}

export function listInvitations(
  db: Queryable,
  tenantId: string,
  page: { limit: number; after?: TimeCursor },
): Promise<(InvitationRow & { cursor_at: string })[]> {
  return db.query(
    `SELECT ${INVITATION_COLUMNS}, ${cursorTimestampSql('created_at')} AS cursor_at FROM user_invitations
     WHERE tenant_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::uuid))
     ORDER BY created_at DESC, id DESC LIMIT $4`,
    [tenantId, page.after?.at ?? null, page.after?.id ?? null, page.limit],
  );
}

export function findInvitation(
  db: Queryable,
  tenantId: string,
  id: string,
  lock = false,
): Promise<InvitationRow | undefined> {
  return queryOne<InvitationRow>(
    db,
    `SELECT ${INVITATION_COLUMNS} FROM user_invitations WHERE tenant_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
    [tenantId, id],
  );
}

/** A new link and a new validity period; the old link stops working. */
export function renewInvitation(
  db: Queryable,
  tenantId: string,
  id: string,
  renewal: { tokenHash: string; expiresAt: Date; invitedBy: string },
): Promise<InvitationRow | undefined> {
  return queryOne<InvitationRow>(
    db,
    `UPDATE user_invitations SET token_hash = $3, expires_at = $4, invited_by = $5, sent_at = NULL
     WHERE tenant_id = $1 AND id = $2 RETURNING ${INVITATION_COLUMNS}`,
    [tenantId, id, renewal.tokenHash, renewal.expiresAt, renewal.invitedBy],
  );
}

export async function markInvitationSent(db: Queryable, tenantId: string, id: string): Promise<Date> {
  const row = await queryOne<{ sent_at: Date }>(
    db,
    'UPDATE user_invitations SET sent_at = now() WHERE tenant_id = $1 AND id = $2 RETURNING sent_at',
    [tenantId, id],
  );
  return row?.sent_at ?? new Date();
}

export async function deleteInvitation(db: Queryable, tenantId: string, id: string): Promise<boolean> {
  const rows = await db.query('DELETE FROM user_invitations WHERE tenant_id = $1 AND id = $2 RETURNING id', [
    tenantId,
    id,
  ]);
  return rows.length > 0;
}

export interface InvitationByToken extends InvitationRow {
  tenant_id: string;
  tenant_name: string;
}

/**
 * The invitation a link's token stands for: like a session token, the token is what identifies
 * the tenant, so this lookup is not scoped by tenant. `lock` holds the row until the transaction
 * ends (acceptance).
 */
export function findInvitationByToken(
  db: Queryable,
  tokenHash: string,
  lock = false,
): Promise<InvitationByToken | undefined> {
  return queryOne<InvitationByToken>(
    db,
    `SELECT ${INVITATION_COLUMNS.split(', ')
      .map((c) => `i.${c}`)
      .join(', ')}, i.tenant_id, t.name AS tenant_name
     FROM user_invitations i JOIN tenants t ON t.id = i.tenant_id
     WHERE i.token_hash = $1${lock ? ' FOR UPDATE OF i' : ''}`,
    [tokenHash],
  );
}
