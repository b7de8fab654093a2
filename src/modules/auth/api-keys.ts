import bcrypt from 'bcrypt';
import { cacheLookups } from '../../observability/metrics.js';
import { LRUCache } from 'lru-cache';
import { RESYNC_CHANNEL, type Coordination } from '../../coordination/index.js';
import type { Database } from '../../db/database.js';
import { AppError, CHAT_TEXT, type ErrorCodeName } from '../../http/errors.js';
import { randomToken, sha256Hex } from './secrets.js';
import { timePage } from '../../shared/pagination.js';
import * as repo from './repository.js';

/** The error body code of a refused API key (the chat endpoint words it in CHAT_TEXT). */
export function apiKeyCode(chatText: string): ErrorCodeName {
  if (chatText === CHAT_TEXT.keyRequired) return 'api_key_missing';
  if (chatText === CHAT_TEXT.keyExpired) return 'api_key_expired';
  return 'api_key_invalid';
}

export const API_KEY_PREFIX = 'svc_';
export const KEY_LOOKUP_LENGTH = 12;
const REVOKED_CHANNEL = 'api-key-revoked';

/** A new key: `svc_` + 40 base64url characters (240 bits from the CSPRNG). */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomToken(30);
}

export interface VerifiedKey {
  keyId: string;
  tenantId: string;
}

interface CachedKey extends VerifiedKey {
  expiresAt: number | null;
}

export interface ApiKeyServiceOptions {
  bcryptCost: number;
  cacheTtlSeconds: number;
  /** Verified keys the cache holds: its byte bound is this many typical entries. */
  cacheMax: number;
  now?: () => number;
}

/*
 * Both caches are bounded by bytes (UTF-16 string lengths plus object overhead), not entries:
 * an LRU bounded by entries allocates its arrays for all of them up front (about 4 MB for the
 * 100,000 revoked ids below, held empty for the life of the process).
 */
/** Bytes of a cached verification: the SHA-256 hex digest, the key and tenant ids, the object. */
const cachedKeySize = (entry: CachedKey, digest: string) =>
  2 * (digest.length + entry.keyId.length + entry.tenantId.length) + 96;
/** A typical cached verification: a 64-character digest and two UUIDs. */
const CACHED_KEY_BYTES = 2 * (64 + 36 + 36) + 96;
/** Room for 100,000 revoked key ids (UUIDs). */
const REVOKED_MAX_BYTES = 100_000 * (2 * 36 + 64);

/**
 * Issues and verifies tenant API keys. Verified keys are cached by the SHA-256 of the plain
 * key, so bcrypt runs once per key and cache lifetime; revocations are broadcast to every
 * instance, and a revoked key id is remembered so that a verification racing the revocation
 * can never put it back into the cache.
 */
export class ApiKeyService {
  private readonly cache: LRUCache<string, CachedKey>;
  private readonly revoked: LRUCache<string, true>;
  private readonly now: () => number;
  /**
   * A key rotated or revoked by another process on the same PostgreSQL database (the CLI, a
   * second instance, an operator's SQL) is announced by a trigger over LISTEN/NOTIFY, or through
   * Redis when configured, and evicted at once. Where no such broadcast arrives (the listening
   * connection is down, or a coordination that cannot listen), every cache hit confirms the key
   * row with one primary-key read, so the change still holds on the next request. With PGlite no
   * other process can open the database while the server runs.
   */
  get revalidatesCachedKeys(): boolean {
    if (this.coordination.broadcastsArrive) return !this.coordination.broadcastsArrive();
    return !this.coordination.redis && this.db.kind === 'postgres';
  }

  constructor(
    private readonly db: Database,
    private readonly coordination: Coordination,
    private readonly options: ApiKeyServiceOptions,
  ) {
    this.now = options.now ?? Date.now;
    const ttl = Math.max(1, options.cacheTtlSeconds) * 1000;
    this.cache = new LRUCache({
      maxSize: options.cacheMax * CACHED_KEY_BYTES,
      sizeCalculation: cachedKeySize,
      ttl,
      ttlAutopurge: false,
    });
    this.revoked = new LRUCache({
      maxSize: REVOKED_MAX_BYTES,
      sizeCalculation: (_value, keyId) => 2 * keyId.length + 64,
      ttl: ttl * 2,
    });
  }

  async start(): Promise<void> {
    await this.coordination.subscribe(REVOKED_CHANNEL, (keyId) => this.forget(keyId));
    // Revocations may have been missed while the listening connection was away.
    await this.coordination.subscribe(RESYNC_CHANNEL, () => this.cache.clear());
  }

  /** Creates a key for the tenant and deactivates its previous one in the same transaction. */
  async issue(input: {
    tenantId: string;
    name?: string | null;
    expiresAt?: Date | null;
    createdBy?: string | null;
  }): Promise<{ key: string; record: repo.ApiKeyMetadata }> {
    const key = generateApiKey();
    const keyHash = await bcrypt.hash(key, this.options.bcryptCost);
    const { record, revokedIds } = await this.db.transaction(async (tx) => {
      const revokedIds = await repo.deactivateActiveKeys(tx, input.tenantId);
      const record = await repo.insertApiKey(tx, input.tenantId, {
        name: input.name ?? null,
        keyPrefix: key.slice(0, KEY_LOOKUP_LENGTH),
        keyHash,
        expiresAt: input.expiresAt ?? null,
        createdBy: input.createdBy ?? null,
      });
      return { record, revokedIds };
    });
    await Promise.all(revokedIds.map((id) => this.broadcastRevocation(id)));
    return { key, record };
  }

  async revoke(tenantId: string, keyId: string): Promise<boolean> {
    const found = await repo.revokeApiKey(this.db, tenantId, keyId);
    if (found) await this.broadcastRevocation(keyId);
    return found;
  }

  /** Verifies a presented key in the specification's order; throws 401 with its exact text. */
  async verify(presented: string | undefined): Promise<VerifiedKey> {
    if (!presented) throw new AppError(401, CHAT_TEXT.keyRequired);
    const digest = sha256Hex(presented);
    let cached = this.cache.get(digest);
    cacheLookups.inc({ cache: 'api_key', result: cached ? 'hit' : 'miss' });
    if (cached && this.revalidatesCachedKeys) cached = await this.revalidate(digest, cached);
    if (cached) {
      if (cached.expiresAt !== null && cached.expiresAt <= this.now()) {
        this.cache.delete(digest);
        throw new AppError(401, CHAT_TEXT.keyExpired);
      }
      return { keyId: cached.keyId, tenantId: cached.tenantId };
    }
    const row = await this.findMatchingKey(presented);
    if (!row || !row.is_active) throw new AppError(401, CHAT_TEXT.keyInvalid);
    const expiresAt = row.expires_at ? row.expires_at.getTime() : null;
    if (expiresAt !== null && expiresAt <= this.now()) throw new AppError(401, CHAT_TEXT.keyExpired);
    this.remember(digest, { keyId: row.id, tenantId: row.tenant_id, expiresAt });
    void repo.touchApiKey(this.db, row.tenant_id, row.id).catch(() => undefined);
    return { keyId: row.id, tenantId: row.tenant_id };
  }

  /** The cached entry if its row is still active, with the row's current expiry; else forgets it. */
  private async revalidate(digest: string, cached: CachedKey): Promise<CachedKey | undefined> {
    const state = await repo.findKeyState(this.db, cached.keyId);
    if (!state?.is_active) {
      this.forget(cached.keyId);
      return undefined;
    }
    const expiresAt = state.expires_at ? state.expires_at.getTime() : null;
    if (expiresAt === cached.expiresAt) return cached;
    const updated = { ...cached, expiresAt };
    this.cache.delete(digest);
    this.remember(digest, updated);
    return updated;
  }

  /** Several keys may share a prefix: every candidate is compared. */
  private async findMatchingKey(presented: string): Promise<repo.ApiKeyRow | undefined> {
    if (!presented.startsWith(API_KEY_PREFIX) || presented.length < KEY_LOOKUP_LENGTH) return undefined;
    const candidates = await repo.findKeysByPrefix(this.db, presented.slice(0, KEY_LOOKUP_LENGTH));
    for (const candidate of candidates) {
      if (await bcrypt.compare(presented, candidate.key_hash)) return candidate;
    }
    return undefined;
  }

  private remember(digest: string, entry: CachedKey): void {
    if (this.revoked.has(entry.keyId) || this.options.cacheTtlSeconds === 0) return;
    const untilExpiry = entry.expiresAt === null ? Infinity : entry.expiresAt - this.now();
    const ttl = Math.min(this.options.cacheTtlSeconds * 1000, untilExpiry);
    if (ttl > 0) this.cache.set(digest, entry, { ttl });
  }

  private forget(keyId: string): void {
    this.revoked.set(keyId, true);
    for (const [digest, entry] of this.cache.entries()) {
      if (entry.keyId === keyId) this.cache.delete(digest);
    }
  }

  private async broadcastRevocation(keyId: string): Promise<void> {
    this.forget(keyId);
    await this.coordination.publish(REVOKED_CHANNEL, keyId);
  }

  /** Number of cached verifications (for metrics and tests). */
  get cachedCount(): number {
    return this.cache.size;
  }
}

const API_KEY_LIST = 'api_keys';

/** One page of the tenant's API keys, newest first. */
export function listApiKeysPage(db: Database, tenantId: string, query: { limit?: number; cursor?: string }) {
  return timePage(API_KEY_LIST, query, (limit, after) =>
    repo.listApiKeys(db, tenantId, { limit: limit + 1, after }),
  );
}
