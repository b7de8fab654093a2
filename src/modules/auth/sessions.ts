import bcrypt from 'bcrypt';
import type { Coordination } from '../../coordination/index.js';
import type { Database } from '../../db/database.js';
import { AppError, ErrorCode, forbidden, unauthorized } from '../../http/errors.js';
import { hasPermission, type Permission, type Role } from './permissions.js';
import { CompareClock, bcryptCost, failurePaddingMs, needsRehash } from './login-timing.js';
import * as repo from './repository.js';
import { randomToken, sha256Hex } from './secrets.js';
import { setPasswordHash } from './users/repository.js';

export const SESSION_TOKEN_PREFIX = 'pst_';
/** Told only to someone who gave the right password: the account exists but may not sign in. */
export const ACCOUNT_DEACTIVATED =
  'This account is deactivated; an owner or admin of your team can reactivate it';

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
  /** Upper bound of the delay added to every login of an account under attack. */
  loginMaxDelayMs: number;
}

/** How long the slowest stored hash cost is remembered before it is read again. */
const SLOWEST_COST_TTL_MS = 60_000;

/** The first delay once an account has loginMaxFailures failures; it doubles with each further one. */
const LOGIN_BASE_DELAY_MS = 100;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class SessionService {
  /** Compared against when the e-mail is unknown: one bcrypt comparison at the configured cost, padded like every failure. */
  private standInHash: Promise<string> | undefined;
  /** Recent bcrypt comparison times, scaled to the configured cost (see login-timing.ts). */
  private readonly clock: CompareClock;
  private slowestCost: { cost: number | undefined; until: number } | undefined;

  constructor(
    private readonly db: Database,
    private readonly coordination: Coordination,
    private readonly options: SessionServiceOptions,
  ) {
    this.clock = new CompareClock(options.bcryptCost);
  }

  hashPassword(password: string): Promise<string> {
    return bcrypt.hash(password, this.options.bcryptCost);
  }

  private standIn(): Promise<string> {
    this.standInHash ??= bcrypt.hash(randomToken(16), this.options.bcryptCost).then(async (hash) => {
      // One comparison up front, so the very first failed sign-in is padded too.
      await this.timedCompare(randomToken(16), hash);
      return hash;
    });
    return this.standInHash;
  }

  private async timedCompare(password: string, hash: string): Promise<{ ok: boolean; elapsedMs: number }> {
    const started = performance.now();
    const ok = await bcrypt.compare(password, hash);
    const elapsedMs = performance.now() - started;
    this.clock.record(elapsedMs, bcryptCost(hash) ?? this.options.bcryptCost);
    return { ok, elapsedMs };
  }

  /** The highest cost among stored password hashes, read at most once a minute. */
  private async slowestStoredCost(): Promise<number | undefined> {
    if (!this.slowestCost || this.slowestCost.until <= Date.now()) {
      const cost = await repo.slowestPasswordCost(this.db);
      this.slowestCost = { cost, until: Date.now() + SLOWEST_COST_TTL_MS };
      if (cost !== undefined && cost > this.options.bcryptCost && !this.clock.has(cost)) {
        // Measure one comparison at that cost in the background, so the floor is measured, not estimated.
        void bcrypt
          .hash(randomToken(16), cost)
          .then((hash) => this.timedCompare(randomToken(16), hash))
          .catch(() => undefined);
      }
    }
    return this.slowestCost.cost;
  }

  /**
   * How long a failed sign-in whose comparison took `elapsedMs` still waits, so that every
   * failure lasts one comparison at the slowest stored cost (login-timing.ts).
   */
  async failurePadding(elapsedMs: number): Promise<number> {
    return failurePaddingMs(elapsedMs, this.clock.floorMs(await this.slowestStoredCost()));
  }

  /**
   * How long a login of this account waits: nothing below loginMaxFailures failures, then a
   * delay that doubles with each further failure, capped at loginMaxDelayMs.
   */
  accountDelayMs(accountFailures: number): number {
    const over = accountFailures - this.options.loginMaxFailures;
    if (over < 0) return 0;
    return Math.min(this.options.loginMaxDelayMs, LOGIN_BASE_DELAY_MS * 2 ** Math.min(over, 20));
  }

  /**
   * Checks the password and opens a session. Throttling follows OWASP's guidance: failures are
   * counted per (account, client address) and per client address, and each of those is locked
   * (429 with Retry-After) past its limit; an account as a whole is never locked by failures
   * from other addresses, only slowed down (accountDelayMs), so an attacker cannot lock the
   * owner out.
   */
  async login(email: string, password: string, clientAddress: string) {
    const account = email.toLowerCase();
    const pairKey = `login-fail:pair:${clientAddress}:${account}`;
    const addressKey = `login-fail:address:${clientAddress}`;
    const accountKey = `login-fail:account:${account}`;
    const [pairFailures, addressFailures, accountFailures] = await Promise.all([
      this.coordination.count(pairKey),
      this.coordination.count(addressKey),
      this.coordination.count(accountKey),
    ]);
    const limit = this.options.loginMaxFailures;
    if (pairFailures >= limit || addressFailures >= limit * 4) {
      throw new AppError(429, ErrorCode.rateLimited, 'Too many failed logins; try again later', {
        details: { code: 'login_throttled' },
        headers: { 'retry-after': String(this.options.loginFailureWindowSeconds) },
      });
    }
    const delay = this.accountDelayMs(accountFailures);
    if (delay > 0) await sleep(delay);
    const [user, standIn] = await Promise.all([
      repo.findUserByEmail(this.db, email),
      this.standIn(),
      this.slowestStoredCost(),
    ]);
    const { ok, elapsedMs } = await this.timedCompare(password, user?.password_hash ?? standIn);
    if (!user || !ok) {
      const padding = await this.failurePadding(elapsedMs);
      if (padding > 0) await sleep(padding);
      const window = this.options.loginFailureWindowSeconds;
      await Promise.all([
        this.coordination.increment(pairKey, window),
        this.coordination.increment(addressKey, window),
        this.coordination.increment(accountKey, window),
      ]);
      throw unauthorized('E-mail or password is wrong', { code: 'login_failed' });
    }
    if (needsRehash(user.password_hash, this.options.bcryptCost)) {
      // The password is known only now: bring its hash to the configured cost, up or down.
      await setPasswordHash(this.db, user.tenant_id, user.id, await this.hashPassword(password));
      this.slowestCost = undefined;
    }
    if (!user.is_active) throw forbidden(ACCOUNT_DEACTIVATED, { code: 'account_deactivated' });
    await Promise.all([this.coordination.reset(pairKey), this.coordination.reset(accountKey)]);
    // Expired sessions are swept here, where sessions are made, rather than by a timer.
    await repo.deleteExpiredSessions(this.db);
    const token = SESSION_TOKEN_PREFIX + randomToken(32);
    const expiresAt = new Date(Date.now() + this.options.sessionTtlHours * 3600_000);
    await repo.openSession(this.db, user.tenant_id, {
      userId: user.id,
      tokenHash: sha256Hex(token),
      expiresAt,
    });
    const { password_hash: _hash, ...publicUser } = user;
    return { token, expiresAt, user: publicUser };
  }

  async authenticate(token: string | undefined): Promise<AuthenticatedUser> {
    if (!token || !token.startsWith(SESSION_TOKEN_PREFIX)) {
      throw unauthorized('Login required', { code: 'login_required' });
    }
    const found = await repo.findSessionUser(this.db, sha256Hex(token));
    if (!found || found.expires_at.getTime() <= Date.now()) {
      throw unauthorized('Session expired or invalid; log in again', { code: 'session_expired' });
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
      throw forbidden(`Role '${user.role}' lacks permission '${permission}'`, {
        code: 'permission_missing',
        permission,
      });
    }
  }
}
