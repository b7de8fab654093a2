import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../src/shared/context.js';
import { insertSession, insertUser } from '../../src/modules/auth/repository.js';
import type { Role } from '../../src/modules/auth/permissions.js';
import { randomToken, sha256Hex } from '../../src/modules/auth/secrets.js';
import { SESSION_TOKEN_PREFIX } from '../../src/modules/auth/sessions.js';
import { createBot } from '../../src/modules/bots/editing.js';
import type { BotFields, BotRow } from '../../src/modules/bots/repository.js';
import { createTenant, type CreateTenantInput } from '../../src/modules/tenants/service.js';
import { recordSecret } from './log-sink.js';

export interface UserFixture {
  id: string;
  email: string;
  password: string;
  role: Role;
  /** Session token for `Authorization: Bearer` or the parley_session cookie. */
  token: string;
  headers: { authorization: string };
}

export interface TenantFixture {
  id: string;
  apiKey: string;
  apiKeyId: string;
  /** Headers for API-key endpoints. */
  keyHeaders: { authorization: string };
  owner: UserFixture;
  user(role: Role): Promise<UserFixture>;
  bot(fields?: Partial<BotFields>): Promise<BotRow>;
}

export async function buildUser(
  ctx: AppContext,
  tenantId: string,
  role: Role = 'owner',
): Promise<UserFixture> {
  const email = `${role}-${randomUUID()}@example.test`;
  const password = `pw-${randomToken(9)}`;
  const user = await insertUser(ctx.db, tenantId, {
    email,
    passwordHash: await ctx.sessions.hashPassword(password),
    role,
    firstName: 'Test',
    lastName: role,
  });
  const token = SESSION_TOKEN_PREFIX + randomToken(32);
  recordSecret(password);
  recordSecret(token);
  await insertSession(ctx.db, tenantId, {
    userId: user.id,
    tokenHash: sha256Hex(token),
    expiresAt: new Date(Date.now() + 3600_000),
  });
  return { id: user.id, email, password, role, token, headers: { authorization: `Bearer ${token}` } };
}

export function buildBot(
  ctx: AppContext,
  tenantId: string,
  fields: Partial<BotFields> = {},
): Promise<BotRow> {
  return createBot(ctx.db, tenantId, { name: `Bot ${randomUUID().slice(0, 8)}`, ...fields });
}

/** A tenant with an owner session and an active API key; more users and bots on demand. */
export async function buildTenant(
  ctx: AppContext,
  input: Partial<CreateTenantInput> = {},
): Promise<TenantFixture> {
  const { tenant } = await ctx.db.transaction((tx) =>
    createTenant(tx, { name: `Tenant ${randomUUID().slice(0, 8)}`, plan: 'business', ...input }),
  );
  const owner = await buildUser(ctx, tenant.id, 'owner');
  const { key, record } = await ctx.apiKeys.issue({ tenantId: tenant.id });
  recordSecret(key);
  return {
    id: tenant.id,
    apiKey: key,
    apiKeyId: record.id,
    keyHeaders: { authorization: `Bearer ${key}` },
    owner,
    user: (role) => buildUser(ctx, tenant.id, role),
    bot: (fields) => buildBot(ctx, tenant.id, fields),
  };
}
