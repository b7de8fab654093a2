import type { AppContext } from '../../../shared/context.js';
import { AppError, ErrorCode, badRequest, conflict, notFound } from '../../../http/errors.js';
import { decodeTimeCursor, encodeTimeCursor, splitPage } from '../../../shared/pagination.js';
import { isUuid } from '../../../shared/ids.js';
import * as repo from './repository.js';
import { INVITATION_TEXT, acceptUrl, invitationExpiry, invitationState } from './rules.js';
import { mailerFor } from '../mailer.js';
import type { Role } from '../permissions.js';
import { findTenant } from '../../tenants/index.js';
import { findUserByEmail, insertUser } from '../repository.js';
import { randomToken, sha256Hex } from '../secrets.js';
import type { AuthenticatedUser } from '../sessions.js';
import { TEAM_PAGE_SIZE } from '../users/schema.js';
import { PASSWORD_MAX_BYTES, passwordProblem, refuseCreation } from '../users/rules.js';

/** The refusals of an invitation link that is no longer valid. */
const invitationUnknown = () =>
  new AppError(404, ErrorCode.notFound, INVITATION_TEXT.unknown, { details: { code: 'invitation_unknown' } });
const invitationExpired = () =>
  new AppError(410, ErrorCode.notFound, INVITATION_TEXT.expired, { details: { code: 'invitation_expired' } });

const INVITATION_LIST = 'user_invitations';

function serializeInvitation(row: repo.InvitationRow, now = new Date()) {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    invited_by: row.invited_by,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
    expired: invitationState(row.expires_at, now) === 'expired',
    sent_at: row.sent_at ? row.sent_at.toISOString() : null,
  };
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

export async function listInvitations(
  ctx: AppContext,
  tenantId: string,
  query: { limit?: number; cursor?: string },
) {
  const limit = query.limit ?? TEAM_PAGE_SIZE;
  const rows = await repo.listInvitations(ctx.db, tenantId, {
    limit: limit + 1,
    after: decodeTimeCursor(INVITATION_LIST, query.cursor),
  });
  const page = splitPage(rows, limit, (last) =>
    encodeTimeCursor(INVITATION_LIST, { at: last.cursor_at, id: last.id }),
  );
  const now = new Date();
  return { data: page.data.map((row) => serializeInvitation(row, now)), next_cursor: page.next_cursor };
}

/**
 * Hands the link to the invited person: by e-mail when SMTP is configured, otherwise in the
 * answer to the inviter, who passes it on. Either way the same happens whatever the address is.
 */
export interface WarnLog {
  warn(details: object, message: string): void;
}

async function deliver(
  ctx: AppContext,
  log: WarnLog,
  tenantId: string,
  row: repo.InvitationRow,
  token: string,
  tenantName: string,
) {
  const url = acceptUrl(ctx.config.publicBaseUrl, token);
  const send = mailerFor(ctx.config);
  if (!send) return { ...serializeInvitation(row), delivery: 'link' as const, accept_url: url };
  try {
    await send({
      to: row.email,
      subject: `Invitation to ${tenantName} on Parley / Einladung zu ${tenantName} bei Parley`,
      text: [
        `You have been invited to join the team of ${tenantName} on Parley as ${row.role}.`,
        `Open this link to set your password and accept (valid until ${row.expires_at.toISOString()}):`,
        url,
        '',
        `Sie wurden eingeladen, dem Team von ${tenantName} bei Parley beizutreten (Rolle: ${row.role}).`,
        'Öffnen Sie diesen Link, um Ihr Passwort festzulegen und die Einladung anzunehmen:',
        url,
        '',
        'If you did not expect this invitation, ignore this message. / Falls Sie diese Einladung nicht erwartet haben, ignorieren Sie diese Nachricht.',
      ].join('\n'),
    });
  } catch (error) {
    log.warn({ err: error instanceof Error ? error.message : String(error) }, 'invitation e-mail not sent');
    throw new AppError(503, ErrorCode.unavailable, INVITATION_TEXT.mailFailed, {
      details: { code: 'invitation_mail_failed' },
    });
  }
  const sentAt = await repo.markInvitationSent(ctx.db, tenantId, row.id);
  return {
    ...serializeInvitation({ ...row, sent_at: sentAt }),
    delivery: 'email' as const,
    accept_url: null,
  };
}

async function tenantName(ctx: AppContext, tenantId: string): Promise<string> {
  return (await findTenant(ctx.db, tenantId))?.name ?? '';
}

/**
 * Invites an address. The answer is the same whether or not the address has an account with
 * another tenant: no lookup outside this tenant happens here. Members of this tenant and
 * addresses with a pending invitation here are refused (that is the tenant's own data).
 */
export async function inviteUser(
  ctx: AppContext,
  log: WarnLog,
  actor: AuthenticatedUser,
  input: { email: string; role: Role },
) {
  const refusal = refuseCreation(actor, input.role);
  if (refusal) throw refusal;
  if (await repo.isTenantMember(ctx.db, actor.tenantId, input.email)) {
    throw conflict(INVITATION_TEXT.memberExists, { code: 'member_exists', field: 'email' });
  }
  const token = randomToken(32);
  let row: repo.InvitationRow;
  try {
    row = await repo.insertInvitation(ctx.db, actor.tenantId, {
      email: input.email,
      role: input.role,
      tokenHash: sha256Hex(token),
      invitedBy: actor.id,
      expiresAt: invitationExpiry(new Date()),
    });
  } catch (error) {
    if (isUniqueViolation(error))
      throw conflict(INVITATION_TEXT.pending, { code: 'invitation_pending', field: 'email' });
    throw error;
  }
  return deliver(ctx, log, actor.tenantId, row, token, await tenantName(ctx, actor.tenantId));
}

/** A new link and validity period for a pending invitation (the old link stops working). */
export async function resendInvitation(ctx: AppContext, log: WarnLog, actor: AuthenticatedUser, id: string) {
  if (!isUuid(id)) throw notFound('Invitation');
  const token = randomToken(32);
  const row = await ctx.db.transaction(async (tx) => {
    const found = await repo.findInvitation(tx, actor.tenantId, id, true);
    if (!found) throw notFound('Invitation');
    const refusal = refuseCreation(actor, found.role);
    if (refusal) throw refusal;
    const renewed = await repo.renewInvitation(tx, actor.tenantId, id, {
      tokenHash: sha256Hex(token),
      expiresAt: invitationExpiry(new Date()),
      invitedBy: actor.id,
    });
    return renewed!;
  });
  return deliver(ctx, log, actor.tenantId, row, token, await tenantName(ctx, actor.tenantId));
}

export async function revokeInvitation(ctx: AppContext, actor: AuthenticatedUser, id: string): Promise<void> {
  if (!isUuid(id)) throw notFound('Invitation');
  await ctx.db.transaction(async (tx) => {
    const found = await repo.findInvitation(tx, actor.tenantId, id, true);
    if (!found) throw notFound('Invitation');
    const refusal = refuseCreation(actor, found.role);
    if (refusal) throw refusal;
    await repo.deleteInvitation(tx, actor.tenantId, id);
  });
}

async function validInvitation(ctx: AppContext, token: string) {
  const found = await repo.findInvitationByToken(ctx.db, sha256Hex(token));
  if (!found) throw invitationUnknown();
  if (invitationState(found.expires_at, new Date()) === 'expired') {
    throw invitationExpired();
  }
  return found;
}

/** What the acceptance page shows the link holder before they choose a password. */
export async function previewInvitation(ctx: AppContext, token: string) {
  const found = await validInvitation(ctx, token);
  return {
    email: found.email,
    role: found.role,
    tenant_name: found.tenant_name,
    expires_at: found.expires_at.toISOString(),
  };
}

/**
 * Accepts an invitation: creates the user with the chosen password and names and deletes the
 * invitation, in one transaction. An address that already has an account (with any tenant) is
 * refused with a sentence meant for the person who holds the link; the invitation stays pending,
 * exactly as when it is ignored, so the inviter's view does not change.
 */
export async function acceptInvitation(
  ctx: AppContext,
  input: { token: string; password: string; first_name?: string; last_name?: string },
) {
  const problem = passwordProblem(input.password);
  if (problem)
    throw badRequest(problem, { code: 'password_weak', field: 'password', limit: PASSWORD_MAX_BYTES });
  await validInvitation(ctx, input.token);
  const passwordHash = await ctx.sessions.hashPassword(input.password);
  return ctx.db.transaction(async (tx) => {
    const found = await repo.findInvitationByToken(tx, sha256Hex(input.token), true);
    if (!found) throw invitationUnknown();
    if (invitationState(found.expires_at, new Date()) === 'expired') {
      throw invitationExpired();
    }
    if (await findUserByEmail(tx, found.email))
      throw conflict(INVITATION_TEXT.addressTaken, { code: 'address_taken' });
    try {
      await insertUser(tx, found.tenant_id, {
        email: found.email,
        passwordHash,
        role: found.role,
        firstName: input.first_name?.trim() || null,
        lastName: input.last_name?.trim() || null,
      });
    } catch (error) {
      // Another account took the address between the check and the insert.
      if (isUniqueViolation(error)) throw conflict(INVITATION_TEXT.addressTaken, { code: 'address_taken' });
      throw error;
    }
    await repo.deleteInvitation(tx, found.tenant_id, found.id);
    return { email: found.email, tenant_name: found.tenant_name };
  });
}
