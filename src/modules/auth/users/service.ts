import bcrypt from 'bcrypt';
import type { AppContext } from '../../../shared/context.js';
import type { Database } from '../../../db/database.js';
import { AppError, ErrorCode, badRequest, forbidden, notFound } from '../../../http/errors.js';
import { decodeTimeCursor, encodeTimeCursor, splitPage } from '../../../shared/pagination.js';
import { hasPermission } from '../permissions.js';
import type { AuthenticatedUser } from '../sessions.js';
import * as repo from './repository.js';
import {
  PASSWORD_MAX_BYTES,
  USER_RULE_TEXT,
  passwordProblem,
  refuseChange,
  type AccessChange,
} from './rules.js';
import { TEAM_PAGE_SIZE } from './schema.js';

const TEAM_LIST = 'users';

export function serializeTeamUser(user: repo.TeamUserRow) {
  return {
    id: user.id,
    email: user.email,
    first_name: user.first_name,
    last_name: user.last_name,
    role: user.role,
    is_active: user.is_active,
    created_at: user.created_at.toISOString(),
    last_login_at: user.last_login_at ? user.last_login_at.toISOString() : null,
  };
}

export async function listUsers(db: Database, tenantId: string, query: { limit?: number; cursor?: string }) {
  const limit = query.limit ?? TEAM_PAGE_SIZE;
  const rows = await repo.listTeamUsers(db, tenantId, {
    limit,
    after: decodeTimeCursor(TEAM_LIST, query.cursor),
  });
  const page = splitPage(rows, limit, (last) =>
    encodeTimeCursor(TEAM_LIST, { at: last.cursor_at, id: last.id }),
  );
  return { data: page.data.map(serializeTeamUser), next_cursor: page.next_cursor };
}

/**
 * Changes a member's role or active state in one transaction that holds the target and every
 * active owner locked, so the last active owner can never be demoted or deactivated, not even
 * by two requests at once. Deactivation ends the member's sessions in the same transaction.
 */
export async function updateUser(
  db: Database,
  actor: AuthenticatedUser,
  userId: string,
  change: AccessChange,
) {
  if (change.role === undefined && change.is_active === undefined) {
    throw badRequest("Give at least one of the fields 'role' and 'is_active'", { code: 'nothing_to_change' });
  }
  const updated = await db.transaction(async (tx) => {
    const members = await repo.lockMembers(tx, actor.tenantId, [userId, actor.id]);
    const target = members.find((m) => m.id === userId);
    if (!target) throw notFound('User');
    // The actor's role as it is now, under lock: a concurrent change may have taken it away.
    const self = members.find((m) => m.id === actor.id);
    if (!self?.is_active || !hasPermission(self.role, 'user:manage'))
      throw forbidden(USER_RULE_TEXT.noLongerManager, { code: 'manager_role_lost' });
    const otherActiveOwners = members.filter(
      (m) => m.id !== userId && m.role === 'owner' && m.is_active,
    ).length;
    const refusal = refuseChange({ actor: self, target, change, otherActiveOwners });
    if (refusal) throw refusal;
    const row = await repo.updateUserAccess(tx, actor.tenantId, userId, change);
    if (change.is_active === false) await repo.deleteUserSessions(tx, actor.tenantId, userId);
    return row;
  });
  return serializeTeamUser(updated);
}

/**
 * Changes the signed-in user's own password and ends their other sessions. Wrong current
 * passwords are counted like failed logins, so a stolen session cannot be used to guess it.
 */
export async function changeOwnPassword(
  ctx: AppContext,
  user: AuthenticatedUser,
  input: { current_password: string; new_password: string },
): Promise<void> {
  const { loginMaxFailures, loginFailureWindowSeconds } = ctx.config.auth;
  const failures = `password-fail:user:${user.id}`;
  if ((await ctx.coordination.count(failures)) >= loginMaxFailures) {
    throw new AppError(429, ErrorCode.rateLimited, 'Too many wrong current passwords; try again later', {
      details: { code: 'password_attempts' },
      headers: { 'retry-after': String(loginFailureWindowSeconds) },
    });
  }
  const problem = passwordProblem(input.new_password);
  if (problem)
    throw badRequest(problem, { code: 'password_weak', field: 'new_password', limit: PASSWORD_MAX_BYTES });
  if (input.new_password === input.current_password) {
    throw badRequest('The new password must differ from the current one', {
      code: 'password_unchanged',
      field: 'new_password',
    });
  }
  const newHash = await ctx.sessions.hashPassword(input.new_password);
  const changed = await ctx.db.transaction(async (tx) => {
    const currentHash = await repo.lockPasswordHash(tx, user.tenantId, user.id);
    if (!currentHash || !(await bcrypt.compare(input.current_password, currentHash))) return false;
    await repo.setPasswordHash(tx, user.tenantId, user.id, newHash);
    await repo.deleteUserSessions(tx, user.tenantId, user.id, user.sessionId);
    return true;
  });
  if (!changed) {
    await ctx.coordination.increment(failures, loginFailureWindowSeconds);
    throw badRequest("Field 'current_password' is not your current password", {
      code: 'password_wrong',
      field: 'current_password',
    });
  }
  await ctx.coordination.reset(failures);
}

/** A picture address the widget may show: https, a host, no user name or password. */
export function avatarProblem(
  raw: string,
): { message: string; code: 'url_invalid' | 'url_credentials' } | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { message: "Field 'avatar_url' is not a valid address", code: 'url_invalid' };
  }
  if (url.protocol !== 'https:' || !url.hostname) {
    return { message: "Field 'avatar_url' must be an https address with a host", code: 'url_invalid' };
  }
  if (url.username || url.password) {
    return {
      message: "Field 'avatar_url' must not contain a user name or password",
      code: 'url_credentials',
    };
  }
  return null;
}

const profileText = (value: string | null | undefined) =>
  value === undefined ? undefined : value === null || value.trim() === '' ? null : value.trim();

/**
 * Changes the signed-in user's own name and picture (the fields given; null or empty clears
 * one). Widget visitors see the first name and the picture next to the user's replies.
 */
export async function updateOwnProfile(
  db: Database,
  user: AuthenticatedUser,
  input: { first_name?: string | null; last_name?: string | null; avatar_url?: string | null },
) {
  if (input.first_name === undefined && input.last_name === undefined && input.avatar_url === undefined) {
    throw badRequest("Give at least one of the fields 'first_name', 'last_name' and 'avatar_url'", {
      code: 'nothing_to_change',
    });
  }
  const avatar = profileText(input.avatar_url);
  if (avatar) {
    const problem = avatarProblem(avatar);
    if (problem) throw badRequest(problem.message, { code: problem.code, field: 'avatar_url' });
  }
  const row = await repo.updateProfile(db, user.tenantId, user.id, {
    first_name: profileText(input.first_name),
    last_name: profileText(input.last_name),
    avatar_url: avatar,
  });
  if (!row) throw notFound('User');
  return { ...row, created_at: row.created_at.toISOString() };
}
