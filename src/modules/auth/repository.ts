import { queryOne, type Queryable } from '../../db/database.js';
import { cursorTimestampSql, type TimeCursor } from '../../shared/pagination.js';
import type { Role } from './permissions.js';

export interface ApiKeyRow {
  id: string;
  tenant_id: string;
  name: string | null;
  key_prefix: string;
  key_hash: string;
  is_active: boolean;
  expires_at: Date | null;
  created_by: string | null;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

/** What the API may show of a key: never the hash. */
export type ApiKeyMetadata = Omit<ApiKeyRow, 'key_hash' | 'tenant_id'>;

const KEY_METADATA_COLUMNS =
  'id, name, key_prefix, is_active, expires_at, created_by, created_at, revoked_at, last_used_at';

/** Lookup by prefix happens before the tenant is known: the one query not scoped by tenant. */
export function findKeysByPrefix(db: Queryable, prefix: string): Promise<ApiKeyRow[]> {
  return db.query<ApiKeyRow>('SELECT * FROM api_keys WHERE key_prefix = $1 ORDER BY created_at DESC', [
    prefix,
  ]);
}

/** Whether a key is still active, and until when: one primary-key read per cached verification. */
export async function findKeyState(
  db: Queryable,
  keyId: string,
): Promise<{ is_active: boolean; expires_at: Date | null } | undefined> {
  const rows = await db.query<{ is_active: boolean; expires_at: Date | null }>(
    'SELECT is_active, expires_at FROM api_keys WHERE id = $1',
    [keyId],
  );
  return rows[0];
}

export async function deactivateActiveKeys(db: Queryable, tenantId: string): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `UPDATE api_keys SET is_active = false, revoked_at = now()
     WHERE tenant_id = $1 AND is_active RETURNING id`,
    [tenantId],
  );
  return rows.map((r) => r.id);
}

export async function insertApiKey(
  db: Queryable,
  tenantId: string,
  key: {
    name: string | null;
    keyPrefix: string;
    keyHash: string;
    expiresAt: Date | null;
    createdBy: string | null;
  },
): Promise<ApiKeyMetadata> {
  const rows = await db.query<ApiKeyMetadata>(
    `INSERT INTO api_keys (tenant_id, name, key_prefix, key_hash, expires_at, created_by)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${KEY_METADATA_COLUMNS}`,
    [tenantId, key.name, key.keyPrefix, key.keyHash, key.expiresAt, key.createdBy],
  );
  return rows[0]!;
}

/** The tenant's keys, newest first, from a cursor position on. */
export function listApiKeys(
  db: Queryable,
  tenantId: string,
  page: { limit: number; after?: TimeCursor },
): Promise<(ApiKeyMetadata & { cursor_at: string })[]> {
  return db.query(
    `SELECT ${KEY_METADATA_COLUMNS}, ${cursorTimestampSql('created_at')} AS cursor_at FROM api_keys
     WHERE tenant_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::uuid))
     ORDER BY created_at DESC, id DESC LIMIT $4`,
    [tenantId, page.after?.at ?? null, page.after?.id ?? null, page.limit],
  );
}

export async function revokeApiKey(db: Queryable, tenantId: string, keyId: string): Promise<boolean> {
  const rows = await db.query(
    `UPDATE api_keys SET is_active = false, revoked_at = coalesce(revoked_at, now())
     WHERE tenant_id = $1 AND id = $2 RETURNING id`,
    [tenantId, keyId],
  );
  return rows.length > 0;
}

export async function touchApiKey(db: Queryable, tenantId: string, keyId: string): Promise<void> {
  await db.query('UPDATE api_keys SET last_used_at = now() WHERE tenant_id = $1 AND id = $2', [
    tenantId,
    keyId,
  ]);
}

export interface UserRow {
  id: string;
  tenant_id: string;
  email: string;
  password_hash: string;
  role: Role;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  company: string | null;
  /** https address of the user's picture (shown to widget visitors); null when none. */
  avatar_url: string | null;
  is_active: boolean;
  last_login_at: Date | null;
  created_at: Date;
}

export type PublicUser = Omit<UserRow, 'password_hash'>;

export const USER_PUBLIC_COLUMNS =
  'id, tenant_id, email, role, first_name, last_name, phone, company, avatar_url, is_active, last_login_at, created_at';

/** Login looks a user up by e-mail before the tenant is known. */
export function findPublicUser(
  db: Queryable,
  tenantId: string,
  userId: string,
): Promise<PublicUser | undefined> {
  return queryOne<PublicUser>(
    db,
    `SELECT ${USER_PUBLIC_COLUMNS} FROM users WHERE tenant_id = $1 AND id = $2`,
    [tenantId, userId],
  );
}

export async function findUserByEmail(db: Queryable, email: string): Promise<UserRow | undefined> {
  const rows = await db.query<UserRow>('SELECT * FROM users WHERE lower(email) = lower($1)', [email]);
  return rows[0];
}

/**
 * The highest bcrypt cost among all stored password hashes (an aggregate over every tenant,
 * revealing nothing of any one): failed sign-ins are padded to a comparison at this cost.
 */
export async function slowestPasswordCost(db: Queryable): Promise<number | undefined> {
  const rows = await db.query<{ cost: number | null }>(
    'SELECT max(substring(password_hash from $1)::int) AS cost FROM users',
    ['^\\$2[abxy]\\$([0-9]{2})\\$'],
  );
  return rows[0]?.cost ?? undefined;
}

export async function insertUser(
  db: Queryable,
  tenantId: string,
  user: {
    email: string;
    passwordHash: string;
    role: Role;
    firstName?: string | null;
    lastName?: string | null;
    phone?: string | null;
    company?: string | null;
  },
): Promise<PublicUser> {
  const rows = await db.query<PublicUser>(
    `INSERT INTO users (tenant_id, email, password_hash, role, first_name, last_name, phone, company)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${USER_PUBLIC_COLUMNS}`,
    [
      tenantId,
      user.email,
      user.passwordHash,
      user.role,
      user.firstName ?? null,
      user.lastName ?? null,
      user.phone ?? null,
      user.company ?? null,
    ],
  );
  return rows[0]!;
}

export async function insertSession(
  db: Queryable,
  tenantId: string,
  session: { userId: string; tokenHash: string; expiresAt: Date },
): Promise<void> {
  await db.query(
    'INSERT INTO sessions (tenant_id, user_id, token_hash, expires_at) VALUES ($1, $2, $3, $4)',
    [tenantId, session.userId, session.tokenHash, session.expiresAt],
  );
}

/** A session opened by signing in: also records the user's last sign-in, in one statement. */
export async function openSession(
  db: Queryable,
  tenantId: string,
  session: { userId: string; tokenHash: string; expiresAt: Date },
): Promise<void> {
  await db.query(
    `WITH opened AS (
       INSERT INTO sessions (tenant_id, user_id, token_hash, expires_at) VALUES ($1, $2, $3, $4)
       RETURNING user_id
     )
     UPDATE users SET last_login_at = now() WHERE tenant_id = $1 AND id IN (SELECT user_id FROM opened)`,
    [tenantId, session.userId, session.tokenHash, session.expiresAt],
  );
}

export interface SessionUser extends PublicUser {
  session_id: string;
  expires_at: Date;
}

/**
 * Resolves a session token hash to its user; the token is what identifies the tenant. A
 * deactivated user's sessions are deleted, and are never honoured should one race the deletion.
 */
export async function findSessionUser(db: Queryable, tokenHash: string): Promise<SessionUser | undefined> {
  const rows = await db.query<SessionUser>(
    `SELECT s.id AS session_id, s.expires_at, ${USER_PUBLIC_COLUMNS.split(', ')
      .map((c) => `u.${c}`)
      .join(', ')}
     FROM sessions s JOIN users u ON u.id = s.user_id AND u.tenant_id = s.tenant_id
     WHERE s.token_hash = $1 AND u.is_active`,
    [tokenHash],
  );
  return rows[0];
}

export async function deleteSession(db: Queryable, tenantId: string, sessionId: string): Promise<void> {
  await db.query('DELETE FROM sessions WHERE tenant_id = $1 AND id = $2', [tenantId, sessionId]);
}

export async function deleteExpiredSessions(db: Queryable): Promise<void> {
  await db.query('DELETE FROM sessions WHERE expires_at < now()');
}
