import { queryOne, type Queryable } from '../../../db/database.js';
import { cursorTimestampSql, type TimeCursor } from '../../../shared/pagination.js';
import { isUuid } from '../../../shared/ids.js';
import { USER_PUBLIC_COLUMNS, type PublicUser } from '../repository.js';
import type { Role } from '../permissions.js';
import type { Member } from './rules.js';

/** A team member as the team list shows it: never the password hash. */
export interface TeamUserRow {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  role: Role;
  is_active: boolean;
  created_at: Date;
  last_login_at: Date | null;
}

export const TEAM_USER_COLUMNS =
  'id, email, first_name, last_name, role, is_active, created_at, last_login_at';

export type TeamUserListRow = TeamUserRow & { cursor_at: string };

/** The tenant's users, newest first. */
export function listTeamUsers(
  db: Queryable,
  tenantId: string,
  page: { limit: number; after?: TimeCursor },
): Promise<TeamUserListRow[]> {
  const params: unknown[] = [tenantId];
  let after = '';
  if (page.after) {
    params.push(page.after.at, page.after.id);
    after = 'AND (created_at, id) < ($2::timestamptz, $3::uuid)';
  }
  params.push(page.limit + 1);
  return db.query<TeamUserListRow>(
    `SELECT ${TEAM_USER_COLUMNS}, ${cursorTimestampSql('created_at')} AS cursor_at
     FROM users WHERE tenant_id = $1 ${after}
     ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
}

/**
 * Locks the named users and every active owner of the tenant, in id order so that concurrent
 * changes cannot deadlock. Under these locks neither the acting user's role nor the number of
 * active owners can change, which makes "never leave the tenant without an active owner" safe
 * against concurrent demotions. Users of other tenants are not returned.
 */
export function lockMembers(tx: Queryable, tenantId: string, userIds: string[]): Promise<Member[]> {
  return tx.query<Member>(
    `SELECT id, role, is_active FROM users
     WHERE tenant_id = $1 AND (id = ANY($2::uuid[]) OR (role = 'owner' AND is_active))
     ORDER BY id FOR UPDATE`,
    [tenantId, userIds.filter(isUuid)],
  );
}

export async function updateUserAccess(
  tx: Queryable,
  tenantId: string,
  userId: string,
  change: { role?: Role; is_active?: boolean },
): Promise<TeamUserRow> {
  return (await queryOne<TeamUserRow>(
    tx,
    `UPDATE users SET role = coalesce($3, role), is_active = coalesce($4, is_active), updated_at = now()
     WHERE tenant_id = $1 AND id = $2 RETURNING ${TEAM_USER_COLUMNS}`,
    [tenantId, userId, change.role ?? null, change.is_active ?? null],
  ))!;
}

/** Ends the user's sessions, all of them or all but one. */
export async function deleteUserSessions(
  tx: Queryable,
  tenantId: string,
  userId: string,
  exceptSessionId?: string,
): Promise<void> {
  await tx.query(
    `DELETE FROM sessions WHERE tenant_id = $1 AND user_id = $2 AND ($3::uuid IS NULL OR id <> $3::uuid)`,
    [tenantId, userId, exceptSessionId ?? null],
  );
}

/** The user's password hash, locked until the transaction ends (a change compares, then writes). */
export async function lockPasswordHash(
  tx: Queryable,
  tenantId: string,
  userId: string,
): Promise<string | undefined> {
  const row = await queryOne<{ password_hash: string }>(
    tx,
    'SELECT password_hash FROM users WHERE tenant_id = $1 AND id = $2 FOR UPDATE',
    [tenantId, userId],
  );
  return row?.password_hash;
}

export async function setPasswordHash(
  tx: Queryable,
  tenantId: string,
  userId: string,
  passwordHash: string,
): Promise<void> {
  await tx.query('UPDATE users SET password_hash = $3, updated_at = now() WHERE tenant_id = $1 AND id = $2', [
    tenantId,
    userId,
    passwordHash,
  ]);
}

/** Sets the user's own profile fields that are given (undefined: unchanged); the row, or undefined. */
export function updateProfile(
  db: Queryable,
  tenantId: string,
  userId: string,
  change: { first_name?: string | null; last_name?: string | null; avatar_url?: string | null },
): Promise<PublicUser | undefined> {
  return queryOne<PublicUser>(
    db,
    `UPDATE users SET
       first_name = CASE WHEN $3::boolean THEN $4 ELSE first_name END,
       last_name = CASE WHEN $5::boolean THEN $6 ELSE last_name END,
       avatar_url = CASE WHEN $7::boolean THEN $8 ELSE avatar_url END,
       updated_at = now()
     WHERE tenant_id = $1 AND id = $2 RETURNING ${USER_PUBLIC_COLUMNS}`,
    [
      tenantId,
      userId,
      change.first_name !== undefined,
      change.first_name ?? null,
      change.last_name !== undefined,
      change.last_name ?? null,
      change.avatar_url !== undefined,
      change.avatar_url ?? null,
    ],
  );
}
