import bcrypt from 'bcrypt';
import type { Coordination } from '../../coordination/index.js';
import type { Database } from '../../db/database.js';
import { AppError, ErrorCode } from '../../http/errors.js';
import { hasPermission, type Permission, type Role } from './permissions.js';
import * as repo from './repository.js';
import { randomToken, sha256Hex } from './secrets.js';

export const SESSION_TOKEN_PREFIX = 'pst_';

export interface AuthenticatedUser {
  id: string;
  tenantId: string;
  email: string;
  role: Role;
  sessionId: string;
}

export interface SessionServiceOptions {
  bcryptCost: number;
  sessionTtlHours: number;
  loginMaxFailures: number;
  loginFailureWindowSeconds: number;
}

/** Compared against when the e-mail is unknown, so both paths cost one bcrypt comparison. */
const DUMMY_HASH = '$2b$10$g0yj3BZbQQBsS796vUxUh.SosOvzoGem82iaT7xSDLcsXQyAI.9JC';

export class SessionService {
  constructor(
    private readonly db: Database,
    private readonly coordination: Coordination,
    private readonly options: SessionServiceOptions,
  ) {}

  hashPassword(password: string): Promise<string> {
    return bcrypt.hash(password, this.options.bcryptCost);
  }

  /**
   * Checks the password and opens a session. Failed attempts are counted per account and per
   * client address; past the limit both are refused with 429 until the window ends.
   */
  async login(email: string, password: string, clientAddress: string) {
    const accountKey = `login-fail:account:${email.toLowerCase()}`;
    const addressKey = `login-fail:address:${clientAddress}`;
    const [accountFailures, addressFailures] = await Promise.all([
      this.coordination.count(accountKey),
      this.coordination.count(addressKey),
    ]);
    const limit = this.options.loginMaxFailures;
    if (accountFailures >= limit || addressFailures >= limit * 4) {
      throw new AppError(429, ErrorCode.rateLimited, 'Too many failed logins; try again later', {
        headers: { 'retry-after': String(this.options.loginFailureWindowSeconds) },
      });
    }
    const user = await repo.findUserByEmail(this.db, email);
    const ok = await bcrypt.compare(password, user?.password_hash ?? DUMMY_HASH);
    if (!user || !ok) {
      const window = this.options.loginFailureWindowSeconds;
      await Promise.all([
        this.coordination.increment(accountKey, window),
        this.coordination.increment(addressKey, window),
      ]);
      throw new AppError(401, ErrorCode.unauthorized, 'E-mail or password is wrong');
    }
    await this.coordination.reset(accountKey);
    // Expired sessions are swept here, where sessions are made, rather than by a timer.
    await repo.deleteExpiredSessions(this.db);
    const token = SESSION_TOKEN_PREFIX + randomToken(32);
    const expiresAt = new Date(Date.now() + this.options.sessionTtlHours * 3600_000);
    await repo.insertSession(this.db, user.tenant_id, {
      userId: user.id,
      tokenHash: sha256Hex(token),
      expiresAt,
    });
    const { password_hash: _hash, ...publicUser } = user;
    return { token, expiresAt, user: publicUser };
  }

  async authenticate(token: string | undefined): Promise<AuthenticatedUser> {
    if (!token || !token.startsWith(SESSION_TOKEN_PREFIX)) {
      throw new AppError(401, ErrorCode.unauthorized, 'Login required');
    }
    const found = await repo.findSessionUser(this.db, sha256Hex(token));
    if (!found || found.expires_at.getTime() <= Date.now()) {
      throw new AppError(401, ErrorCode.unauthorized, 'Session expired or invalid; log in again');
    }
    return {
      id: found.id,
      tenantId: found.tenant_id,
      email: found.email,
      role: found.role,
      sessionId: found.session_id,
    };
  }

  async logout(user: AuthenticatedUser): Promise<void> {
    await repo.deleteSession(this.db, user.tenantId, user.sessionId);
  }

  authorize(user: AuthenticatedUser, permission: Permission): void {
    if (!hasPermission(user.role, permission)) {
      throw new AppError(403, ErrorCode.forbidden, `Role '${user.role}' lacks permission '${permission}'`);
    }
  }
}
